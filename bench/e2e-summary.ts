/**
 * The end of a benchmark run: one table of every measurement, then the ratios a user can act on,
 * each with what it means (how near the loader comes to the fastest set-based path on this
 * machine, what failing rows cost, the memory a load needs). Ratios are only ever computed between
 * figures of the same run: the machine is shared. The project's own goals for these ratios are in
 * bench/RESULTS.md, not printed: a user was never told of them.
 */
import type { E2eOptions, E2eResult } from './e2e.js';
import { fmtMs, fmtRate, median } from './figures.js';
import { medianOf, pairLines } from './pairs.js';

const percent = (x: number) => `${Math.round(x * 100)} %`;
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
  out.push(...pairLines(r));
  out.push('');
  out.push('What the figures mean (ratios of this run only):');
  if (ceiling !== null) {
    // with --repeat, ratios of the alternating (ceiling, load) pairs, and their median
    const pairs = r.load
      .map((l, i) => {
        const c = r.ceiling[i];
        return c === undefined ? null : l.rowsPerSec / c.rowsPerSec;
      })
      .filter((x): x is number => x !== null);
    const ratio = pairs.length > 1 ? medianOf(pairs) : load.rowsPerSec / ceiling.rowsPerSec;
    out.push(
      `- load / set-based path = ${ratio.toFixed(2)}: the load reaches ${percent(ratio)} of the rate of the set-based path on this machine (${fmtRate(load.rowsPerSec)} against ${fmtRate(ceiling.rowsPerSec)}): COPY, then one MERGE and one UPDATE of the whole file, the failing rows left out beforehand by a WHERE the loader cannot know. That path is the most the database does with the file; the rest of the rate pays for what the loader adds: chunks that commit on their own, each failing row found and set ERROR with its error.`,
    );
  }
  if (r.rowwise !== null) {
    const ratio = load.rowsPerSec / r.rowwise.rowsPerSec;
    out.push(
      `- load / row-at-a-time = ${ratio.toFixed(1)}: the load is ${ratio.toFixed(1)} times as fast as a loader that stages and merges each row on its own in a savepoint (${fmtRate(r.rowwise.rowsPerSec)}), the usual way to keep going past a failing row.`,
    );
  }
  if (r.isolationLoad !== null) {
    const ratio = load.rowsPerSec / r.isolationLoad.rowsPerSec;
    out.push(
      `- with 0.1% overflow rows / without = ${ratio.toFixed(2)}: rows the database refuses cost ${percent(Math.max(0, 1 - ratio))} of the rate (each refused chunk is split until its failing rows are found).`,
    );
  }
  if (r.allFailing !== null) {
    const ratio = r.allFailing.failing.wallMs / r.allFailing.clean.wallMs;
    out.push(
      `- every row failing / clean file (time) = ${ratio.toFixed(2)}: a file whose every row the database refuses takes ${ratio.toFixed(1)} times as long as a clean one (${fmtMs(r.allFailing.failing.wallMs)} against ${fmtMs(r.allFailing.clean.wallMs)}): a bad file does not stall the night.`,
    );
  }
  if (load.peakRssMb !== null)
    out.push(
      `- peak RSS of the load = ${load.peakRssMb.toFixed(0)} MB: the memory the loader process needed for this file at these settings (--workers ${load.workers}, --chunk-size ${load.chunkSize}).`,
    );
  if (r.load.length > 1)
    out.push(
      `(load and ceiling rows: the faster of ${r.load.length} alternating runs for 2, else the median; load / ceiling: median of the pair ratios)`,
    );
  return out.join('\n');
}
