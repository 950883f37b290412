/**
 * The invariants every survival test checks after a run (or a series of interrupted runs and a
 * completing one). Reusable against any PostgreSQL-family database the test can query (server
 * PostgreSQL or a PGlite clone): pass a `sql` function that runs one statement.
 *
 *  1. every source_key of the file is in order_stage exactly once;
 *  2. no row is left PROCESSING or READY (nor RETRY_WAIT, unless allowed);
 *  3. DONE rows and orders correspond one to one, with equal values;
 *  4. every ERROR row has at least one error-log row;
 *  5. no order exists without a DONE stage row.
 *
 * checkInvariants() returns the violations as readable lines (empty = all hold), so a failing
 * test says what is wrong with which rows instead of "expected false to be true".
 */

export type Sql = <R = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<R[]>;

export interface StatusCounts {
  READY: number;
  PROCESSING: number;
  DONE: number;
  ERROR: number;
  RETRY_WAIT: number;
  stage: number;
  orders: number;
}

export interface InvariantOptions {
  /** The source_keys the file(s) held (those with a usable key): each must be staged exactly once. */
  sourceKeys?: Iterable<string> | undefined;
  /** Also fail on stage rows whose key is not in `sourceKeys` (the database held only this file). */
  exclusive?: boolean | undefined;
  /** RETRY_WAIT rows are acceptable (a run that met transient row failures). Default false. */
  allowRetryWait?: boolean | undefined;
  /** READY and RETRY_WAIT rows are acceptable (between an interrupted run and the completing one). */
  allowUnfinished?: boolean | undefined;
}

export interface InvariantReport {
  violations: string[];
  counts: StatusCounts;
}

const SAMPLE = 5;

function sample(values: unknown[]): string {
  const shown = values.slice(0, SAMPLE).map((v) => JSON.stringify(v));
  return values.length > SAMPLE ? `${shown.join(', ')}, … (${values.length} in all)` : shown.join(', ');
}

export async function statusCounts(sql: Sql): Promise<StatusCounts> {
  const rows = await sql<{ process_status: string; n: number | string }>(
    'SELECT process_status, count(*)::int AS n FROM order_stage GROUP BY process_status',
  );
  const counts: StatusCounts = { READY: 0, PROCESSING: 0, DONE: 0, ERROR: 0, RETRY_WAIT: 0, stage: 0, orders: 0 };
  for (const r of rows) {
    const n = Number(r.n);
    if (r.process_status in counts) counts[r.process_status as keyof StatusCounts] = n;
    counts.stage += n;
  }
  const [o] = await sql<{ n: number | string }>('SELECT count(*)::int AS n FROM orders');
  counts.orders = Number(o?.n ?? 0);
  return counts;
}

export async function checkInvariants(sql: Sql, options: InvariantOptions = {}): Promise<InvariantReport> {
  const violations: string[] = [];

  // 1. every source_key of the file exactly once (the unique constraint makes "more than once"
  //    impossible in the table; we still check it, a dropped constraint must not go unnoticed)
  if (options.sourceKeys !== undefined) {
    const expected = new Set(options.sourceKeys);
    const staged = await sql<{ source_key: string; n: number | string }>(
      'SELECT source_key, count(*)::int AS n FROM order_stage GROUP BY source_key',
    );
    const seen = new Map(staged.map((r) => [r.source_key, Number(r.n)]));
    const missing = [...expected].filter((k) => !seen.has(k));
    const repeated = staged.filter((r) => Number(r.n) > 1).map((r) => r.source_key);
    if (missing.length > 0) violations.push(`source_keys of the file missing from order_stage: ${sample(missing)}`);
    if (repeated.length > 0) violations.push(`source_keys staged more than once: ${sample(repeated)}`);
    if (options.exclusive === true) {
      const extra = [...seen.keys()].filter((k) => !expected.has(k));
      if (extra.length > 0) violations.push(`order_stage rows whose source_key is not in the file: ${sample(extra)}`);
    }
  }

  // 2. nothing left in flight
  const unfinished = await sql<{ source_key: string; process_status: string }>(
    `SELECT source_key, process_status FROM order_stage
      WHERE process_status IN (${options.allowUnfinished === true ? "'PROCESSING'" : options.allowRetryWait === true ? "'READY', 'PROCESSING'" : "'READY', 'PROCESSING', 'RETRY_WAIT'"})
      ORDER BY stage_id LIMIT 50`,
  );
  if (unfinished.length > 0) {
    violations.push(`rows not finished: ${sample(unfinished.map((r) => `${r.source_key}=${r.process_status}`))}`);
  }

  // 3. DONE ↔ orders, equal values
  const doneWithoutOrder = await sql<{ source_key: string }>(
    `SELECT s.source_key FROM order_stage s
      WHERE s.process_status = 'DONE'
        AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.source_key = s.source_key)
      ORDER BY s.stage_id LIMIT 50`,
  );
  if (doneWithoutOrder.length > 0) violations.push(`DONE rows without an order: ${sample(doneWithoutOrder.map((r) => r.source_key))}`);
  const differing = await sql<{ source_key: string }>(
    `SELECT s.source_key FROM order_stage s JOIN orders o ON o.source_key = s.source_key
      WHERE s.process_status = 'DONE'
        AND (s.customer_id, s.order_date, s.amount, s.currency)
            IS DISTINCT FROM (o.customer_id, o.order_date, o.amount, o.currency)
      ORDER BY s.stage_id LIMIT 50`,
  );
  if (differing.length > 0) violations.push(`DONE rows whose order has other values: ${sample(differing.map((r) => r.source_key))}`);

  // 4. every ERROR row explained in the error log
  const unexplained = await sql<{ source_key: string; error_code: string | null }>(
    `SELECT s.source_key, s.error_code FROM order_stage s
      WHERE s.process_status = 'ERROR'
        AND NOT EXISTS (SELECT 1 FROM order_bulk_error e WHERE e.stage_id = s.stage_id)
      ORDER BY s.stage_id LIMIT 50`,
  );
  if (unexplained.length > 0) {
    violations.push(`ERROR rows without an error-log row: ${sample(unexplained.map((r) => `${r.source_key} (${r.error_code ?? '-'})`))}`);
  }
  const noCode = await sql<{ source_key: string }>(
    `SELECT source_key FROM order_stage WHERE process_status = 'ERROR' AND (error_code IS NULL OR error_message IS NULL) LIMIT 50`,
  );
  if (noCode.length > 0) violations.push(`ERROR rows without error_code/error_message: ${sample(noCode.map((r) => r.source_key))}`);

  // 5. no order without a DONE stage row
  const orphanOrders = await sql<{ source_key: string; process_status: string | null }>(
    `SELECT o.source_key, s.process_status FROM orders o LEFT JOIN order_stage s ON s.source_key = o.source_key
      WHERE s.stage_id IS NULL OR s.process_status <> 'DONE'
      ORDER BY o.order_id LIMIT 50`,
  );
  if (orphanOrders.length > 0) {
    violations.push(
      `orders without a DONE stage row: ${sample(orphanOrders.map((r) => `${r.source_key}=${r.process_status ?? 'no stage row'}`))}`,
    );
  }

  const counts = await statusCounts(sql);
  if (counts.orders !== counts.DONE) violations.push(`${counts.orders} orders but ${counts.DONE} DONE stage rows`);
  return { violations, counts };
}

/**
 * Every line is accounted for (docs/ARCHITECTURE.md, section 2) for one load: each data line (by line number) is staged by that load,
 * or rejected with a PARSE error-log row carrying its line number and raw text, or overridden by
 * a later line with the same key. Returns the line numbers not accounted for.
 */
export async function unaccountedLines(sql: Sql, loadId: number, dataLines: number[], duplicateLines: number[] = []): Promise<number[]> {
  const staged = await sql<{ line_no: number | string }>('SELECT line_no FROM order_stage WHERE load_id = $1', [loadId]);
  const rejected = await sql<{ line_no: number | string }>(
    "SELECT line_no FROM order_bulk_error WHERE load_id = $1 AND phase = 'PARSE' AND line_no IS NOT NULL AND raw_record IS NOT NULL",
    [loadId],
  );
  const accounted = new Set<number>([...staged, ...rejected].map((r) => Number(r.line_no)));
  for (const l of duplicateLines) accounted.add(l);
  return dataLines.filter((l) => !accounted.has(l));
}
