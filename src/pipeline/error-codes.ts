import type { ErrorPhase } from '../engine/types.js';
import type { Reports } from '../engine/contract.js';

/** Rows of some loads that failed with one error code in one phase. */
export interface ErrorCodeCount {
  code: string;
  /** PARSE: rejected while staging (ERROR with a stage row, or a line without one); VALIDATE, MERGE: while processing. */
  phase: ErrorPhase | null;
  /** ERROR: a stage row ended ERROR; rejected: a line rejected before it had a stage row. */
  kind: 'ERROR' | 'rejected';
  rows: number;
}

/**
 * The error codes of the chosen loads with their counts (the morning report), most rows first:
 * the ERROR rows by their latest error, and the lines rejected without a stage row. Read with
 * the keyset pages of the `errors` export: memory holds one page and the counts.
 */
export async function countErrorCodes(
  reports: Pick<Reports, 'listErrorRows' | 'listRejectedLines'>,
  loadIds: number[],
  pageSize = 5000,
): Promise<ErrorCodeCount[]> {
  const counts = new Map<string, ErrorCodeCount>();
  const add = (code: string | null, phase: ErrorPhase | null, kind: ErrorCodeCount['kind']) => {
    const key = `${kind}\u0000${phase ?? ''}\u0000${code ?? ''}`;
    const entry = counts.get(key) ?? { code: code ?? '-', phase, kind, rows: 0 };
    entry.rows++;
    counts.set(key, entry);
  };
  if (loadIds.length === 0) return [];
  for (let afterStageId = 0; ;) {
    const page = await reports.listErrorRows({ loadIds, limit: pageSize, afterStageId });
    for (const r of page) add(r.errorCode, r.phase, 'ERROR');
    const last = page[page.length - 1];
    if (last === undefined || page.length < pageSize) break;
    afterStageId = last.stageId;
  }
  for (let afterErrorId = 0; ;) {
    const page = await reports.listRejectedLines({ loadIds, limit: pageSize, afterErrorId });
    for (const r of page) add(r.errorCode, r.phase, 'rejected');
    const last = page[page.length - 1];
    if (last === undefined || page.length < pageSize) break;
    afterErrorId = last.errorId;
  }
  return [...counts.values()].sort((a, b) => b.rows - a.rows || a.code.localeCompare(b.code));
}
