import { writeSync } from 'node:fs';
import { pino, type DestinationStream, type Logger } from 'pino';
import { redactSecrets } from './engine/db-url.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * Paths that could hold a secret if a connection setting were ever logged: pino replaces them.
 * We never log bind values or connection settings on purpose; this is the second line.
 */
export const REDACT_PATHS = [
  'password',
  '*.password',
  '*.*.password',
  'db.password',
  'walletPassword',
  '*.walletPassword',
  '*.*.walletPassword',
  'connectString',
  '*.connectString',
  'connectionString',
  '*.connectionString',
  'url',
  '*.url',
  'env.ORDER_LOADER_DB_PASSWORD',
  'env.ORDER_LOADER_DB_WALLET_PASSWORD',
  'params',
  '*.params',
  'binds',
  '*.binds',
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
    destination ?? stderrLogDestination(),
  );
}

/**
 * Log lines on stderr (fd 2), each written whole before the call returns (a crash loses none).
 * A reader that went away (`order-loader bench 2>&1 | head -1`: EPIPE) ends the logging, not
 * the command, as a reader of stdout that went away does (src/cli.ts): the command goes on to its
 * end and cleans up after itself. (pino.destination would emit the EPIPE as an 'error' event
 * that ends the process at once, mid-run, and its flush retries such a write forever.)
 */
export function stderrLogDestination(fd = 2): DestinationStream {
  let readerGone = false;
  return {
    write(line: string) {
      if (readerGone) return;
      let rest = Buffer.from(line, 'utf8');
      while (rest.length > 0) {
        try {
          rest = rest.subarray(writeSync(fd, rest));
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'EPIPE') {
            readerGone = true;
            return;
          }
          // a pipe opened non-blocking by another process, full for a moment: its reader catches up
          if (code === 'EAGAIN') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
          else throw error;
        }
      }
    },
  };
}

const LEVEL_LABELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warning', 50: 'error', 60: 'fatal' };
/** Fields every line has: not repeated on a readable line. */
const FRAME_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

/** A string (or list of strings) the message already shows. */
function spelledOut(value: unknown, msg: string): boolean {
  if (typeof value === 'string') return value !== '' && msg.includes(value);
  return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && v !== '' && msg.includes(v));
}

function readableValue(value: unknown): string {
  if (typeof value === 'string') return /[\s=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null)) return value.map(String).join(',');
  return JSON.stringify(value);
}

/**
 * One log record (a pino JSON line) as a line a person reads on a terminal:
 * `warning: <message> (key=value, …)`. Fields already spelled out in the message are not
 * repeated. A line that is not JSON is passed through.
 */
export function readableLogLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const label = LEVEL_LABELS[Number(record.level)] ?? String(record.level);
  const msg = typeof record.msg === 'string' ? record.msg : '';
  const extra = Object.entries(record)
    .filter(([key, value]) => !FRAME_FIELDS.has(key) && value !== undefined && !spelledOut(value, msg))
    .map(([key, value]) => `${key}=${readableValue(value)}`);
  return `${label}: ${msg}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}\n`;
}

/**
 * Log destination for a terminal: each record as one readable line (pino-pretty would do this
 * but is a dependency with its own dependencies; a log file or a pipe keeps the JSON lines).
 */
export function readableLogStream(stream: { write(text: string): unknown }): DestinationStream {
  return {
    write(chunk: string) {
      for (const line of chunk.split('\n')) if (line.trim() !== '') stream.write(readableLogLine(line));
    },
  };
}

/**
 * The command line's logger. On a terminal (stderr a TTY, no log file) a person reads the
 * progress line and the summary: info lines would bury them, so the default level there is warn,
 * and each line is written readably, not as JSON. In a log file, a pipe or cron the default is
 * info, as JSON lines.
 */
export function createCommandLogger(options: {
  level?: LogLevel | undefined;
  logFile?: string | undefined;
  /** Where the log file's lines go, when the caller opened it (the CLI checks it up front). */
  logDestination?: DestinationStream | undefined;
  stderr?: NodeJS.WritableStream & { isTTY?: boolean };
}): Logger {
  const stderr = options.stderr ?? process.stderr;
  const terminal = options.logFile === undefined && stderr.isTTY === true;
  const level = options.level ?? (terminal ? 'warn' : 'info');
  if (options.logFile !== undefined)
    return createLogger(level, options.logDestination ?? pino.destination({ dest: options.logFile, sync: true, mkdir: true }));
  if (terminal) return createLogger(level, readableLogStream(stderr));
  return createLogger(level, stderr === process.stderr ? undefined : stderr);
}
