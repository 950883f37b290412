/** How the benchmarks print durations and throughputs, and the median they report. */

export function fmtMs(ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${(ms / 1000).toFixed(2)} s`;
}

export function fmtRate(perSec: number): string {
  return perSec >= 10_000 ? `${(perSec / 1000).toFixed(1)} k rows/s` : `${perSec.toFixed(0)} rows/s`;
}

/** The median (lower middle for an even count: for 2 runs, the faster one). */
export function median<T>(items: T[], key: (t: T) => number): T {
  const sorted = [...items].sort((a, b) => key(a) - key(b));
  const m = sorted[Math.floor((sorted.length - 1) / 2)];
  if (m === undefined) throw new Error('median of nothing');
  return m;
}
