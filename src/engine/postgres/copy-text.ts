/** The rows of a staging batch in COPY's text format (stage_copy.sql, stage_copy_settled.sql), and which rows settle while staging. */
import type { StageInput } from '../types.js';

/**
 * One field in COPY's text format: `\N` for null; backslash, tab, newline and carriage return
 * escaped (the only characters with a meaning there, as the column delimiter is the tab).
 */
function copyField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  const text = typeof value === 'number' ? String(value) : value;
  return needsCopyEscape(text) ? text.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c] ?? c) : text;
}

/**
 * Whether a text holds a character COPY's text format escapes. A loop over its characters rather
 * than a regular expression's test: the fields are short, and the call into the expression cost
 * more than the loop (copyText of 1M rows in 5,000-row batches, best of 10: 454–499 → 346–352 ms
 * of CPU, bench/RESULTS.md, "The quote-free split").
 */
function needsCopyEscape(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c || c === 0x09 || c === 0x0a || c === 0x0d) return true;
  }
  return false;
}

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * The input of stage_copy.sql for `rows`: what order_loader_stage_batch inserts for new keys.
 * One string per row, joined once: `+=` over the batch built a rope of some 20 pieces a row that
 * lived until the COPY flattened it. Measured (5,000-row batches, 1M rows in all): 423–593 ms
 * against 307–377 ms of CPU (bench/RESULTS.md, run 16).
 */
export function copyText(loadId: number, rows: readonly StageInput[]): string {
  const load = String(loadId);
  const lines = new Array<string>(rows.length + 1);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as StageInput;
    lines[i] = copyLine(r, stagedStatus(r), load);
  }
  lines[rows.length] = ''; // the last row's line end
  return lines.join('\n');
}

/** process_status, error_code and error_message of a row staged as the staging rule says: READY, or ERROR with its parse error. */
function stagedStatus(r: StageInput): string {
  const failed = r.parseError;
  return failed === undefined ? 'READY\t\\N\t\\N' : `ERROR\t${copyField(failed.code)}\t${copyField(failed.message)}`;
}

/** One row of stage_copy.sql's columns, `status` its three status columns. */
function copyLine(r: StageInput, status: string, load: string): string {
  // the attributes are JSON text: its backslashes (the JSON's own escapes) are doubled like any other
  return (
    `${copyField(r.sourceKey)}\t${copyField(r.customerId)}\t${copyField(r.orderDate)}\t${copyField(r.amount)}\t` +
    `${copyField(r.currency)}\t${status}\t${load}\t${copyField(r.lineNo)}\t${copyField(r.attributes)}`
  );
}

/**
 * Whether processing would merge this row as it is staged (a guess: order_loader_settle_staged,
 * migration 015, checks every row guessed so and the batch is staged as before when one fails):
 * no parse error; a customer id of 1 to 18 digits, not starting with 0; a date of the form
 * YYYY-MM-DD from 1900-01-01; an amount of at most 10 digits before the point and 2 after (fits
 * orders.amount, numeric(12,2), without rounding); a currency of three letters A-Z. Narrower than
 * the plain rules of order_loader_process_chunk (migration 012), never wider: a row it leaves out
 * is staged READY and processed as before.
 */
export function settleGuess(r: StageInput): boolean {
  return (
    r.parseError === undefined &&
    r.customerId !== null &&
    SETTLE_CUSTOMER.test(r.customerId) &&
    r.orderDate !== null &&
    SETTLE_DATE.test(r.orderDate) &&
    r.orderDate >= '1900-01-01' &&
    r.amount !== null &&
    SETTLE_AMOUNT.test(r.amount) &&
    r.currency !== null &&
    SETTLE_CURRENCY.test(r.currency)
  );
}

const SETTLE_CUSTOMER = /^[1-9][0-9]{0,17}$/;
const SETTLE_DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
const SETTLE_AMOUNT = /^[0-9]{1,10}(\.[0-9]{1,2})?$/;
const SETTLE_CURRENCY = /^[A-Z]{3}$/;

/**
 * The input of stage_copy_settled.sql: copyText's columns, then attempt_count, batch_id and
 * processed_at; the rows marked are DONE (1, the batch id, `now`), the others as copyText writes
 * them (0, none, none).
 */
export function settledCopyText(
  loadId: number,
  rows: readonly StageInput[],
  marks: readonly boolean[],
  batchId: string,
  now: string,
): string {
  const load = String(loadId);
  const done = `\t1\t${copyField(batchId)}\t${copyField(now)}`;
  const lines = new Array<string>(rows.length + 1);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as StageInput;
    // a marked row has no parse error (settleGuess): DONE, no error
    lines[i] = marks[i] === true ? copyLine(r, 'DONE\t\\N\t\\N', load) + done : `${copyLine(r, stagedStatus(r), load)}\t0\t\\N\t\\N`;
  }
  lines[rows.length] = ''; // the last row's line end
  return lines.join('\n');
}
