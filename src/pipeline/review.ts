/**
 * The review page's reads and writes (`order-loader serve`, src/serve/): the rejected rows newest
 * first by keyset, one row's history, and a resubmit that is `retry`'s own operation with an
 * optimistic check. The page holds no SQL of its own: it calls these through OrderLoader.
 */
import type { AuditEntry, ErrorLogEntry, ErrorPhase } from '../engine/types.js';
import type { Reports } from '../engine/contract.js';
import { exportLinesOf, exportRowsOf, type ErrorExportRow } from './errors-export.js';
import type { ErrorExportPort } from './ports.js';

/** Rows on one page of the review page unless told. */
export const REVIEW_PAGE_SIZE = 100;

export interface RejectedPageFilter {
  loadIds?: number[] | undefined;
  errorCodes?: string[] | undefined;
  phase?: ErrorPhase | undefined;
  /** The last stage_id of the page before (the next page starts below it). */
  beforeStageId?: number | undefined;
  limit?: number | undefined;
}

export interface RejectedPage {
  rows: ErrorExportRow[];
  /** The stage_id the next page starts below; null: this is the last page. */
  nextBefore: number | null;
}

export type ReviewPort = ErrorExportPort & Pick<Reports, 'pageErrorRows' | 'rowHistory' | 'listRejectedLines'>;

/** One page of ERROR rows, newest first: one more row than shown is asked for, to know whether a next page exists. */
export async function rejectedPage(engine: ReviewPort, filter: RejectedPageFilter): Promise<RejectedPage> {
  const limit = Math.max(1, Math.min(1000, Math.floor(filter.limit ?? REVIEW_PAGE_SIZE)));
  const found = await engine.pageErrorRows({
    loadIds: filter.loadIds,
    errorCodes: filter.errorCodes,
    phase: filter.phase,
    beforeStageId: filter.beforeStageId,
    limit: limit + 1,
  });
  const shown = found.slice(0, limit);
  const last = shown[shown.length - 1];
  return { rows: await exportRowsOf(engine, shown), nextBefore: found.length > limit && last !== undefined ? last.stageId : null };
}

export interface RowHistoryView {
  /** The row as the export shows it (values split from its line when it was rejected while parsing); null: no such row. */
  row: ErrorExportRow | null;
  errors: ErrorLogEntry[];
  audit: AuditEntry[];
  /** The loads the row's lines came from (its own and those of its error-log rows), in id order. */
  loadIds: number[];
}

export async function rowHistory(engine: ReviewPort, stageId: number): Promise<RowHistoryView> {
  const history = await engine.rowHistory(stageId);
  const [row] = history.row === null ? [] : await exportRowsOf(engine, [history.row]);
  const loads = new Set<number>();
  if (history.row?.loadId != null) loads.add(history.row.loadId);
  for (const e of history.errors) if (e.loadId !== null) loads.add(e.loadId);
  return { row: row ?? null, errors: history.errors, audit: history.audit, loadIds: [...loads].sort((a, b) => a - b) };
}

export interface RejectedLinesPage {
  lines: ErrorExportRow[];
  /** The error_id the next page starts after; null: this is the last page. */
  nextAfter: number | null;
}

/**
 * The lines refused while staging that have no stage row (no usable key, a wrong field count,
 * bytes that are not text), oldest first by error_id, one keyset page: what `errors` lists after
 * the ERROR rows.
 */
export async function rejectedLinesPage(
  engine: ReviewPort,
  filter: {
    loadIds?: number[] | undefined;
    errorCodes?: string[] | undefined;
    afterErrorId?: number | undefined;
    limit?: number | undefined;
  },
): Promise<RejectedLinesPage> {
  const limit = Math.max(1, Math.min(1000, Math.floor(filter.limit ?? REVIEW_PAGE_SIZE)));
  const found = await engine.listRejectedLines({
    loadIds: filter.loadIds,
    errorCodes: filter.errorCodes,
    afterErrorId: filter.afterErrorId ?? 0,
    limit: limit + 1,
  });
  const shown = found.slice(0, limit);
  const last = shown[shown.length - 1];
  return { lines: await exportLinesOf(engine, shown), nextAfter: found.length > limit && last !== undefined ? last.errorId : null };
}
