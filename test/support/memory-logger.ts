import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createLogger } from '../../src/log.js';

export interface LogRecord {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export interface MemoryLogger {
  logger: Logger;
  /** Parsed log records, in order. */
  records: LogRecord[];
  /** The raw text written (for secret greps). */
  text(): string;
}

/** A pino logger writing to memory, as pino's own tests do: assert on parsed records. */
export function memoryLogger(level: 'debug' | 'info' | 'warn' = 'debug'): MemoryLogger {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, callback) {
      lines.push(chunk.toString('utf8'));
      callback();
    },
  });
  const logger = createLogger(level, sink);
  return {
    logger,
    get records() {
      return lines
        .join('')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as LogRecord);
    },
    text: () => lines.join(''),
  };
}
