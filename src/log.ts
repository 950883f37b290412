import { pino, type DestinationStream, type Logger } from 'pino';
import { redactSecrets } from './engine/db-url.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * Paths that could hold a secret if a connection setting were ever logged: pino replaces them.
 * We never log bind values or connection settings on purpose; this is the second line.
 */
export const REDACT_PATHS = [
  'password', '*.password', 'db.password', 'connectString', '*.connectString', 'connectionString',
  '*.connectionString', 'url', '*.url', 'env.ORDER_LOADER_DB_PASSWORD', 'params', '*.params', 'binds', '*.binds',
];

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // no password may reach a log line, even one a driver echoed into an error message
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((a) => (typeof a === 'string' ? redactSecrets(a) : a)) as Parameters<typeof method>);
        },
      },
      formatters: {
        log: (object) => Object.fromEntries(Object.entries(object).map(([k, v]) => [k, typeof v === 'string' ? redactSecrets(v) : v])),
      },
    },
    destination ?? pino.destination({ fd: 2, sync: true }),
  );
}
