/**
 * The alternating (ceiling, load) pairs of a benchmark run: each pair's ratio (load rows/s over
 * the ceiling's, measured one right after the other), their median and their spread, the load
 * average beside each, and the server's settings not at their defaults. On a shared machine only
 * such ratios mean anything (bench/RESULTS.md): the median of the pairs is the figure, the spread
 * says how far to trust it, and the best pair is never quoted alone.
 */
import type { E2eResult } from './e2e.js';
import { fmtMs } from './figures.js';
import { settingsLine } from './server-settings.js';

/** The median of numbers (the mean of the two middle ones for an even count). */
export function medianOf(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) throw new Error('median of nothing');
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** `median 0.93 (spread 0.88–0.97, 4 pairs)` */
export function medianAndSpread(ratios: readonly number[]): string {
  const min = Math.min(...ratios);
  const max = Math.max(...ratios);
  return `median ${medianOf(ratios).toFixed(2)} (spread ${min.toFixed(2)}–${max.toFixed(2)}, ${ratios.length} pair${ratios.length === 1 ? '' : 's'})`;
}

export function pairLines(r: Pick<E2eResult, 'ceiling' | 'load' | 'before' | 'loadAverages' | 'server'>): string[] {
  const out: string[] = [settingsLine(r.server), ''];
  const n = Math.min(r.ceiling.length, r.load.length);
  if (n === 0) return out;
  const withBefore = r.before.length >= n;
  out.push(`| pair | ceiling | load | load / ceiling |${withBefore ? ' before | before / ceiling |' : ''} load average |`);
  out.push(`|---|---|---|---|${withBefore ? '---|---|' : ''}---|`);
  const ratios: number[] = [];
  const beforeRatios: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = r.ceiling[i];
    const l = r.load[i];
    if (c === undefined || l === undefined) continue;
    const ratio = l.rowsPerSec / c.rowsPerSec;
    ratios.push(ratio);
    let beforeCells = '';
    const b = r.before[i];
    if (withBefore && b !== undefined) {
      const bRatio = b.rowsPerSec / c.rowsPerSec;
      beforeRatios.push(bRatio);
      beforeCells = ` ${fmtMs(b.wallMs)} | ${bRatio.toFixed(2)} |`;
    }
    out.push(
      `| ${i + 1} | ${fmtMs(c.wallMs)} | ${fmtMs(l.wallMs)} | ${ratio.toFixed(2)} |${beforeCells} ${(r.loadAverages[i] ?? 0).toFixed(1)} |`,
    );
  }
  out.push('');
  out.push(`load / ceiling: ${medianAndSpread(ratios)}`);
  if (beforeRatios.length > 0) out.push(`before / ceiling: ${medianAndSpread(beforeRatios)}`);
  return out;
}
