/**
 * The live progress line on stderr, only when stderr is a terminal (never in a log or a pipe).
 * Redrawn at most 4 times a second; cleared before the summary.
 */
export interface Progress {
  staging(file: string, bytesRead: number, size: number, lines: number): void;
  processingStart(total: number): void;
  processing(done: number): void;
  clear(): void;
}

const noProgress: Progress = { staging() {}, processingStart() {}, processing() {}, clear() {} };

function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '-';
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (stream.isTTY !== true) return noProgress;
  let last = 0;
  let shown = false;
  let phaseStart = performance.now();
  let total = 0;
  const draw = (text: string, force = false) => {
    const now = performance.now();
    if (!force && now - last < 250) return;
    last = now;
    shown = true;
    stream.write(`\r\x1b[2K${text.slice(0, (stream.columns ?? 120) - 1)}`);
  };
  let stagingFile = '';
  return {
    staging(file, bytesRead, size, lines) {
      if (file !== stagingFile) {
        stagingFile = file;
        phaseStart = performance.now();
      }
      const elapsed = (performance.now() - phaseStart) / 1000;
      const rate = elapsed > 0 ? lines / elapsed : 0;
      const fraction = size > 0 ? Math.min(1, bytesRead / size) : 0;
      const eta = fraction > 0 ? (elapsed / fraction) * (1 - fraction) : Number.NaN;
      draw(`staging ${file}: ${mb(bytesRead)} / ${mb(size)} (${Math.round(fraction * 100)}%), ${Math.round(rate)} rows/s, ETA ${duration(eta)}`);
    },
    processingStart(n) {
      total = n;
      phaseStart = performance.now();
    },
    processing(done) {
      const elapsed = (performance.now() - phaseStart) / 1000;
      const rate = elapsed > 0 ? done / elapsed : 0;
      const eta = rate > 0 && total > done ? (total - done) / rate : Number.NaN;
      // while staging and processing overlap the total is not known yet: no percentage, no ETA
      draw(
        total > done
          ? `processing: ${done} / ${total} rows (${Math.round((done / total) * 100)}%), ${Math.round(rate)} rows/s, ETA ${duration(eta)}`
          : `processing: ${done} rows, ${Math.round(rate)} rows/s`,
      );
    },
    clear() {
      if (shown) stream.write('\r\x1b[2K');
      shown = false;
    },
  };
}
