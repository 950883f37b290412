import type { ErrorPhase, ErrorRowReport, FileLayout, OrderValues, ProcessStatus, RejectedLine } from '../engine/types.js';
import { parseAttributes } from '../input/profile/attributes.js';
import { rawLineAttributes, splitRawLine } from '../input/raw-line.js';
import type { ErrorExportPort } from './ports.js';

/**
 * One line of the `errors` export: an ERROR stage row with its latest error, or a line rejected
 * before it had a stage row (stageId null). `valuesFrom` says where the order values come from:
 * the stage row, or the rejected line's own text split again by its file's header (a line
 * rejected while parsing has no values in the stage, so fixing its one wrong cell would
 * otherwise mean retyping all the others).
 */
export interface ErrorExportRow extends OrderValues {
  stageId: number | null;
  sourceKey: string | null;
  status: ProcessStatus | null;
  attemptCount: number | null;
  loadId: number | null;
  lineNo: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  updatedAt: Date | null;
  phase: ErrorPhase | null;
  rawRecord: string | null;
  loggedAt: Date | null;
  valuesFrom: 'stage' | 'line';
  /**
   * The line's other columns kept (a profile's `extra`): column name → text, from the stage row,
   * or split again from the line when it has no stage row; null: none. The CSV writes one column
   * per name (src/cli/errors-csv.ts), which the built-in reader keeps again on the way back.
   */
  attributes?: Record<string, string> | undefined;
}

export interface ErrorExportFilter {
  loadIds?: number[] | undefined;
  errorCodes?: string[] | undefined;
  /** At most this many lines in all (default: every one). */
  limit?: number | undefined;
}

/** Rows asked of the database at a time: memory holds one page, whatever the number of rows. */
export const DEFAULT_ERROR_PAGE_SIZE = 1000;

const orNull = (v: string): string | null => (v === '' ? null : v);

/** The file layouts of some loads, read once per load (a load without one maps to null). */
class LayoutCache {
  private readonly layouts = new Map<number, FileLayout | null>();
  constructor(private readonly engine: ErrorExportPort) {}

  async prefetch(loadIds: Array<number | null>): Promise<void> {
    const missing = [...new Set(loadIds.filter((id): id is number => id !== null && !this.layouts.has(id)))];
    if (missing.length === 0) return;
    const found = await this.engine.transaction((tx) => tx.fileLayouts(missing));
    for (const id of missing) this.layouts.set(id, found.get(id) ?? null);
  }

  get(loadId: number | null): FileLayout | null {
    return loadId === null ? null : (this.layouts.get(loadId) ?? null);
  }
}

function lineValues(raw: string | null, layout: FileLayout | null): (OrderValues & { sourceKey: string | null }) | null {
  if (raw === null || raw === '' || layout === null) return null;
  const v = splitRawLine(raw, layout);
  return {
    sourceKey: orNull(v.source_key),
    customerId: orNull(v.customer_id),
    orderDate: orNull(v.order_date),
    amount: orNull(v.amount),
    currency: orNull(v.currency),
  };
}

function fromStageRow(r: ErrorRowReport, layouts: LayoutCache): ErrorExportRow {
  const { errorLoadId, attributes: stored, ...row } = r;
  // the row's line was rejected while parsing: the stage holds no values, its line does
  const layout = r.phase === 'PARSE' ? layouts.get(errorLoadId) : null;
  const line = lineValues(r.rawRecord, layout);
  const values: OrderValues = line ?? { customerId: r.customerId, orderDate: r.orderDate, amount: r.amount, currency: r.currency };
  // staged with the row (also when its line failed parsing); else what its line holds
  const attributes = parseAttributes(stored) ?? (line === null || layout === null ? null : rawLineAttributes(r.rawRecord ?? '', layout));
  return {
    ...row,
    ...values,
    sourceKey: r.sourceKey,
    valuesFrom: line === null ? 'stage' : 'line',
    ...(attributes === null ? {} : { attributes }),
  };
}

function fromRejectedLine(r: RejectedLine, layouts: LayoutCache): ErrorExportRow {
  const layout = layouts.get(r.loadId);
  const line = lineValues(r.rawRecord, layout);
  return {
    stageId: null,
    sourceKey: line?.sourceKey ?? null,
    customerId: line?.customerId ?? null,
    orderDate: line?.orderDate ?? null,
    amount: line?.amount ?? null,
    currency: line?.currency ?? null,
    status: null,
    attemptCount: null,
    loadId: r.loadId,
    lineNo: r.lineNo,
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
    updatedAt: null,
    phase: r.phase,
    rawRecord: r.rawRecord,
    loggedAt: r.loggedAt,
    valuesFrom: 'line',
    ...attributesOf(r.rawRecord === null || layout === null ? null : rawLineAttributes(r.rawRecord, layout)),
  };
}

/** The row's attributes, present only when it has some (rows without them are exported as before). */
function attributesOf(attributes: Record<string, string> | null): { attributes?: Record<string, string> } {
  return attributes === null ? {} : { attributes };
}

/** ERROR rows as the export shows them: the values of a row rejected while parsing split again from its line. */
export async function exportRowsOf(engine: ErrorExportPort, rows: ErrorRowReport[]): Promise<ErrorExportRow[]> {
  const layouts = new LayoutCache(engine);
  await layouts.prefetch(rows.filter((r) => r.phase === 'PARSE').map((r) => r.errorLoadId));
  return rows.map((r) => fromStageRow(r, layouts));
}

/** Lines rejected without a stage row as the export shows them: their values split from the line. */
export async function exportLinesOf(engine: ErrorExportPort, lines: RejectedLine[]): Promise<ErrorExportRow[]> {
  const layouts = new LayoutCache(engine);
  await layouts.prefetch(lines.map((r) => r.loadId));
  return lines.map((r) => fromRejectedLine(r, layouts));
}

/**
 * Every rejected line of the chosen loads: the ERROR stage rows (stage_id order), then the
 * lines rejected before they had a stage row (error-log order). Read page by page, each page
 * starting after the last key of the one before (never OFFSET): memory holds one page.
 */
export async function* exportErrorRows(
  engine: ErrorExportPort,
  filter: ErrorExportFilter = {},
  pageSize = DEFAULT_ERROR_PAGE_SIZE,
): AsyncGenerator<ErrorExportRow> {
  const size = Math.max(1, Math.floor(pageSize));
  let remaining = filter.limit ?? Number.POSITIVE_INFINITY;
  const layouts = new LayoutCache(engine);
  const lists = { loadIds: filter.loadIds, errorCodes: filter.errorCodes };

  let afterStageId = 0;
  while (remaining > 0) {
    const asked = Math.min(size, remaining);
    const page = await engine.listErrorRows({ ...lists, limit: asked, afterStageId });
    await layouts.prefetch(page.filter((r) => r.phase === 'PARSE').map((r) => r.errorLoadId));
    for (const r of page) yield fromStageRow(r, layouts);
    remaining -= page.length;
    const last = page[page.length - 1];
    if (last === undefined || page.length < asked) break;
    afterStageId = last.stageId;
  }

  let afterErrorId = 0;
  while (remaining > 0) {
    const asked = Math.min(size, remaining);
    const page = await engine.listRejectedLines({ ...lists, limit: asked, afterErrorId });
    await layouts.prefetch(page.map((r) => r.loadId));
    for (const r of page) yield fromRejectedLine(r, layouts);
    remaining -= page.length;
    const last = page[page.length - 1];
    if (last === undefined || page.length < asked) break;
    afterErrorId = last.errorId;
  }
}
