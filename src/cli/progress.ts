/**
 * The live progress line on stderr, only when stderr is a terminal (never in a log or a pipe).
 * Redrawn at most 4 times a second; cleared before the summary, and before anything else is
 * written to that stream while it is shown (a log line, a warning): no line is glued to it, and
 * the next update draws it again below. When no progress comes for WAIT_SHOWN_MS (a chunk
 * blocked on a row another session holds, a slow commit, a database that stopped answering) the
 * line says how long it has been waiting instead of sitting at 96 %.
 */
import { escapeControl } from './escape.js';
export interface Progress {
  staging(file: string, bytesRead: number, size: number, lines: number): void;
  processingStart(total: number): void;
  processing(done: number): void;
  clear(): void;
}

const noProgress: Progress = { staging() {}, processingStart() {}, processing() {}, clear() {} };

/** No progress for this long: the line says it is waiting for the database. */
export const WAIT_SHOWN_MS = 3000;

function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '-';
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

/** A rate is shown only once measured over this long: a first sample over ~0 ms means nothing. */
const MIN_RATE_MS = 200;

/**
 * Counts per second since a baseline sample. The first report of a file comes after its first
 * batch was committed, so the baseline is that first sample (count and time), not a zero count
 * at a moment that was never observed.
 */
function meter() {
  let base: { at: number; count: number; bytes: number } | null = null;
  return {
    reset(count: number | null = null) {
      base = count === null ? null : { at: performance.now(), count, bytes: 0 };
    },
    /** Rows and bytes per second since the baseline, or null while there is none yet. */
    sample(count: number, bytes = 0): { perSec: number; bytesPerSec: number } | null {
      const now = performance.now();
      if (base === null) {
        base = { at: now, count, bytes };
        return null;
      }
      const ms = now - base.at;
      if (ms < MIN_RATE_MS) return null;
      return { perSec: ((count - base.count) * 1000) / ms, bytesPerSec: ((bytes - base.bytes) * 1000) / ms };
    },
  };
}

/** Where the progress line goes: a terminal (isTTY true) or nowhere. */
export interface ProgressStream {
  isTTY?: boolean | undefined;
  columns?: number | undefined;
  write(text: string): boolean;
}

/**
 * `waitNote`: what a wait may be, said on the line while it waits (the row lock limit of
 * --row-lock-wait, src/cli/command.ts).
 */
export function createProgress(
  stream: ProgressStream = process.stderr,
  options: { waitNote?: (() => string) | undefined; waitShownMs?: number } = {},
): Progress {
  const waitShownMs = options.waitShownMs ?? WAIT_SHOWN_MS;
  if (stream.isTTY !== true) return noProgress;
  let last = 0;
  let shown = false;
  let total = 0;
  // the stream's own write: the line is drawn with it, and any other writer goes through `guarded`
  const ownWrite = Object.hasOwn(stream, 'write');
  // kept to be put back as it was: an own property (a test's stream), or the prototype's (deleted then)
  const original = Object.getOwnPropertyDescriptor(stream, 'write');
  const write: ProgressStream['write'] = stream.write.bind(stream);
  const guarded = (...args: Parameters<ProgressStream['write']>) => {
    if (shown) {
      write('\r\x1b[2K');
      shown = false;
      // drawn again at the next update, below what was written
      last = 0;
    }
    return write(...args);
  };
  let lastText = '';
  let lastUpdate = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const draw = (text: string, force = false) => {
    const now = performance.now();
    if (!force && now - last < 250) return;
    last = now;
    shown = true;
    if (stream.write !== guarded) stream.write = guarded;
    timer ??= setInterval(sayWaiting, Math.min(1000, waitShownMs)).unref();
    write(`\r\x1b[2K${escapeControl(text).slice(0, (stream.columns ?? 120) - 1)}`);
  };
  /** An update: drawn, and remembered for the waiting note. */
  const update = (text: string) => {
    lastText = text;
    lastUpdate = performance.now();
    draw(text);
  };
  function sayWaiting() {
    const waited = performance.now() - lastUpdate;
    if (lastText === '' || waited < waitShownMs) return;
    draw(`${lastText}; waiting ${Math.floor(waited / 1000)} s for the database${options.waitNote?.() ?? ''}`, true);
  }
  let stagingFile = '';
  const stagingRate = meter();
  const processingRate = meter();
  return {
    staging(file, bytesRead, size, lines) {
      if (file !== stagingFile) {
        stagingFile = file;
        stagingRate.reset();
      }
      const rate = stagingRate.sample(lines, bytesRead);
      const fraction = size > 0 ? Math.min(1, bytesRead / size) : 0;
      const eta = rate !== null && rate.bytesPerSec > 0 ? (size - bytesRead) / rate.bytesPerSec : Number.NaN;
      update(
        `staging ${file}: ${mb(bytesRead)} / ${mb(size)} (${Math.round(fraction * 100)}%), ${rate === null ? '-' : Math.round(rate.perSec)} rows/s, ETA ${duration(eta)}`,
      );
    },
    processingStart(n) {
      total = n;
      // processing starts now with nothing done: a real baseline
      processingRate.reset(0);
    },
    processing(done) {
      const rate = processingRate.sample(done);
      const eta = rate !== null && rate.perSec > 0 && total > done ? (total - done) / rate.perSec : Number.NaN;
      const perSec = rate === null ? '-' : String(Math.round(rate.perSec));
      // while staging and processing overlap the total is not known yet: no percentage, no ETA
      update(
        total > done
          ? `processing: ${done} / ${total} rows (${Math.round((done / total) * 100)}%), ${perSec} rows/s, ETA ${duration(eta)}`
          : `processing: ${done} rows, ${perSec} rows/s`,
      );
    },
    clear() {
      if (shown) write('\r\x1b[2K');
      shown = false;
      lastText = '';
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      if (stream.write === guarded) {
        if (ownWrite && original !== undefined) Object.defineProperty(stream, 'write', original);
        else delete (stream as { write?: unknown }).write;
      }
    },
  };
}
