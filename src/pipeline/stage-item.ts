/**
 * One item a file's reader hands staging, put into the batch being filled: a record parsed into
 * its stage row (or its parse error, logged, and a row when its key can be told), a line the
 * reader rejected into the batch's error log. No database work: stage.ts commits the batch.
 */
import type { OrderFileHeader } from '../input/order-file.js';
import type { StageInput } from '../engine/types.js';
import type { FileItem, FileRecord, FileReject } from '../input/order-file.js';
import { parseOrderRecord, type ParsedOrder, type ParseOutcome } from '../input/order-record.js';
import { rejectedLineKey } from '../input/rejected-key.js';
import { parseMappedRecord } from '../input/profile/mapping.js';
import { addRow, type Batch } from './stage-batch.js';

/** What an item needs besides itself: the load it is staged for and how to tell a rejected line's key. */
export interface ItemContext {
  loadId: number;
  header: Pick<OrderFileHeader, 'names' | 'positions'>;
  /** The file's delimiter (src/input/rejected-key.ts); undefined: a rejected line is logged without its key. */
  delimiter: string | undefined;
}

/** A record's parse: the order its mapping handed over (FileRecord.order), else its fields parsed. */
function parsedItem(item: FileRecord): ParseOutcome {
  const order = item.order;
  if (order != null) return { ok: true, order };
  return item.problem == null ? parseOrderRecord(item.fields) : parseMappedRecord(item.fields, item.problem);
}

/**
 * A stage row, every property set in one order: the rows of a batch share one hidden class, so
 * copyText and the column arrays read them at one shape. Measured (bench/RESULTS.md, run 18;
 * staging's own CPU: read, parse, batch, COPY text, no database, 1M rows): a row made by spreading
 * the parsed order (`{ ...order, lineNo }`) cost about 2 s more, the COPY text alone 2.4 s
 * against 1.0 s.
 */
function stageRow(
  order: ParsedOrder,
  lineNo: number,
  parseError: StageInput['parseError'],
  attributes: string | null | undefined,
): StageInput {
  return {
    sourceKey: order.sourceKey,
    customerId: order.customerId,
    orderDate: order.orderDate,
    amount: order.amount,
    currency: order.currency,
    lineNo,
    parseError,
    attributes: attributes ?? undefined,
  };
}

/**
 * A line the reader rejected: counted and logged (phase PARSE) with its source_key when it can be
 * told, so that `errors` drops it once that key is DONE later.
 */
function addReject(batch: Batch, item: FileReject, ctx: ItemContext): void {
  batch.rejected++;
  const key = ctx.delimiter === undefined ? null : rejectedLineKey(item, ctx.header, ctx.delimiter);
  batch.errors.push({
    stageId: null,
    sourceKey: key,
    keyOnly: key !== null,
    loadId: ctx.loadId,
    lineNo: item.lineNo,
    batchId: null,
    attemptNo: null,
    phase: 'PARSE',
    code: item.code,
    message: item.message,
    rawRecord: item.raw,
  });
}

/**
 * A record's stage row; when it does not parse, its error is counted and logged, and the row
 * carries the parse error if its key can be told (null: no row).
 */
function recordRow(batch: Batch, item: FileRecord, loadId: number): StageInput | null {
  const parsed = parsedItem(item);
  if (parsed.ok) return stageRow(parsed.order, item.lineNo, undefined, item.attributes);
  batch.rejected++;
  const { code, message } = parsed.error;
  batch.errors.push({
    stageId: null,
    sourceKey: parsed.sourceKey,
    loadId,
    lineNo: item.lineNo,
    batchId: null,
    attemptNo: null,
    phase: 'PARSE',
    code,
    message,
    rawRecord: item.raw,
  });
  if (parsed.sourceKey === null) return null;
  // the line's other columns (a profile's `extra`) are kept also on a row staged as a parse error
  return stageRow(
    { sourceKey: parsed.sourceKey, customerId: null, orderDate: null, amount: null, currency: null },
    item.lineNo,
    { code, message },
    item.attributes,
  );
}

/** Put one item into the batch being filled, and move the batch's checkpoint past it. */
export function addItem(batch: Batch, item: FileItem, ctx: ItemContext): void {
  batch.lines++;
  batch.endLine = item.endLine;
  batch.endByte = item.endByte;
  if (item.kind === 'reject') {
    addReject(batch, item, ctx);
    return;
  }
  const row = recordRow(batch, item, ctx.loadId);
  if (row === null) return;
  // The last line of a key wins within the file; within a batch only its row stays, at the
  // place of that line.
  addRow(batch, row, item.rawLater?.() ?? item);
}
