import type { LoadReport } from '../pipeline/load.js';

/**
 * What each phase of a `load` did, for its rates. Rows written DONE in the staging batch that
 * staged them (settled while staging, PGlite) are staging's work: processing's rate counts only
 * the rows it claimed itself (counted with the settled ones, a phase that claimed none read
 * "1000000 rows, 65443964 rows/s").
 */
export interface PhaseWork {
  /** Lines read while staging (files skipped as staged before read none). */
  lines: number;
  /** Of the rows of the report's processing counts, those settled while staging. */
  settled: number;
  /** Rows processing claimed itself. */
  processed: number;
}

export function phaseWork(report: Pick<LoadReport, 'files' | 'process'>): PhaseWork {
  const lines = report.files.reduce((n, f) => n + (f.skipped === null ? f.counts.read : 0), 0);
  const settled = report.process?.settled ?? 0;
  return { lines, settled, processed: report.process === null ? 0 : report.process.claimed - settled };
}

/** Per second of `ms`; 0 for a phase that took no time. */
export function perSecond(n: number, ms: number): number {
  return ms > 0 ? (n * 1000) / ms : 0;
}

/** The phases' work and rates, as the log's last line of a load or stage carries them. */
export function phaseRates(report: Pick<LoadReport, 'files' | 'process' | 'stageMs' | 'processMs'>) {
  const work = phaseWork(report);
  return {
    stage: {
      ms: Math.round(report.stageMs),
      lines: work.lines,
      settled: work.settled,
      linesPerSecond: Math.round(perSecond(work.lines, report.stageMs)),
    },
    process:
      report.process === null
        ? null
        : {
            ms: Math.round(report.processMs),
            rows: work.processed,
            rowsPerSecond: Math.round(perSecond(work.processed, report.processMs)),
          },
  };
}

/** The summary's words for the two phases (render.ts, render-markdown.ts). */
export function phaseParts(report: Pick<LoadReport, 'files' | 'process' | 'stageMs' | 'processMs'>): {
  stage: string;
  process: string | null;
} {
  const rates = phaseRates(report);
  const settled = rates.stage.settled > 0 ? `, ${rates.stage.settled} rows settled` : '';
  return {
    stage: `${rates.stage.lines} lines read, ${rates.stage.linesPerSecond} lines/s${settled}`,
    process: rates.process === null ? null : `${rates.process.rows} rows, ${rates.process.rowsPerSecond} rows/s`,
  };
}
