/**
 * The end of a benchmark run: one table of every measurement, then the ratios against their
 * targets (load / set-based ceiling: floor 0.40, target 0.80; all-failing file / clean ≤ about 2; load / row-at-a-time ≥ 25; with
 * 0.1 % overflow rows / without ≥ 0.80; peak RSS ≤ 256 MB). Ratios are only ever computed between
 * figures of the same run: the machine is shared.
 */
import type { E2eOptions, E2eResult } from './e2e.js';
import { fmtMs, fmtRate, median } from './figures.js';
import type { LoadMeasurement } from './load-run.js';

export function summary(r: E2eResult, options: Pick<E2eOptions, 'rows' | 'workers' | 'chunkSize'>): string {
  const out: string[] = [];
  const cpu = (m: LoadMeasurement) => (m.nodeCpuS === null ? '?' : `${m.nodeCpuS.toFixed(1)} s`);
  const load = median(r.load, (m) => m.wallMs);
  const ceiling = r.ceiling.length > 0 ? median(r.ceiling, (m) => m.wallMs) : null;
  out.push(
    `Summary (${options.rows} rows; ${r.files.withOverflow.missing} missing amounts, ${r.files.withOverflow.overflow} overflow amounts)`,
  );
  out.push(`| measurement | wall | rows/s | peak RSS | Node CPU |`);
  out.push(`|---|---|---|---|---|`);
  out.push(
    `| load (workers ${load.workers}, chunk ${load.chunkSize}; stage ${fmtMs(load.stageMs ?? 0)}, process ${fmtMs(load.processMs ?? 0)}) | ${fmtMs(load.wallMs)} | ${fmtRate(load.rowsPerSec)} | ${load.peakRssMb?.toFixed(0) ?? '?'} MB | ${cpu(load)} |`,
  );
  if (ceiling !== null) {
    out.push(
      `| set-based ceiling (COPY + 1 MERGE + 1 UPDATE; overflow rows excluded by a precomputed WHERE) | ${fmtMs(ceiling.wallMs)} | ${fmtRate(ceiling.rowsPerSec)} | – | – |`,
    );
  }
  if (r.rowwise !== null) {
    out.push(
      `| row-at-a-time (measured on ${r.rowwise.rows} rows, extrapolated) | ${fmtMs(r.rowwise.extrapolatedMs)} (est.) | ${fmtRate(r.rowwise.rowsPerSec)} | – | – |`,
    );
  }
  if (r.isolationLoad !== null) {
    out.push(
      `| load, same file without overflow rows | ${fmtMs(r.isolationLoad.wallMs)} | ${fmtRate(r.isolationLoad.rowsPerSec)} | ${r.isolationLoad.peakRssMb?.toFixed(0) ?? '?'} MB | ${cpu(r.isolationLoad)} |`,
    );
  }
  if (r.allFailing !== null) {
    for (const [label, m] of [
      ['load, clean file (no failing row)', r.allFailing.clean],
      ['load, every amount overflows orders.amount', r.allFailing.failing],
    ] as const) {
      out.push(`| ${label} | ${fmtMs(m.wallMs)} | ${fmtRate(m.rowsPerSec)} | ${m.peakRssMb?.toFixed(0) ?? '?'} MB | ${cpu(m)} |`);
    }
  }
  for (const m of r.matrix) {
    out.push(
      `| load ${m.label} (stage ${fmtMs(m.stageMs ?? 0)}, process ${fmtMs(m.processMs ?? 0)}) | ${fmtMs(m.wallMs)} | ${fmtRate(m.rowsPerSec)} | ${m.peakRssMb?.toFixed(0) ?? '?'} MB | ${cpu(m)} |`,
    );
  }
  out.push('');
  const check = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  if (ceiling !== null) {
    // with --repeat, ratios of the alternating (ceiling, load) pairs, and their median
    const pairs = r.load
      .map((l, i) => {
        const c = r.ceiling[i];
        return c === undefined ? null : l.rowsPerSec / c.rowsPerSec;
      })
      .filter((x): x is number => x !== null);
    const ratio = pairs.length > 1 ? median(pairs, (x) => x) : load.rowsPerSec / ceiling.rowsPerSec;
    if (pairs.length > 1) out.push(`load / ceiling per pair: ${pairs.map((x) => x.toFixed(2)).join(', ')}`);
    out.push(`load / ceiling        = ${ratio.toFixed(2)}  (floor ≥ 0.40: ${check(ratio >= 0.4)}; target ≥ 0.80: ${check(ratio >= 0.8)})`);
  }
  if (r.rowwise !== null) {
    const ratio = load.rowsPerSec / r.rowwise.rowsPerSec;
    out.push(`load / row-at-a-time = ${ratio.toFixed(1)}  (target ≥ 25: ${check(ratio >= 25)})`);
  }
  if (r.isolationLoad !== null) {
    const ratio = load.rowsPerSec / r.isolationLoad.rowsPerSec;
    out.push(`with 0.1% overflow / without = ${ratio.toFixed(2)}  (target ≥ 0.80: ${check(ratio >= 0.8)})`);
  }
  if (r.allFailing !== null) {
    const ratio = r.allFailing.failing.wallMs / r.allFailing.clean.wallMs;
    out.push(`all failing / clean file (time) = ${ratio.toFixed(2)}  (target ≤ about 2: ${check(ratio <= 2.2)})`);
  }
  if (load.peakRssMb !== null)
    out.push(`peak RSS of load      = ${load.peakRssMb.toFixed(0)} MB  (target ≤ 256: ${check(load.peakRssMb <= 256)})`);
  if (r.load.length > 1)
    out.push(
      `(load and ceiling rows: the faster of ${r.load.length} alternating runs for 2, else the median; load / ceiling: median of the pair ratios)`,
    );
  return out.join('\n');
}
