/**
 * The set-based ceiling: what PostgreSQL does with the file and no per-row isolation. COPY of
 * the raw file into order_stage (psql \copy), then in one transaction ONE MERGE into orders and
 * ONE UPDATE of every stage status; it writes no error-log rows. A single set-based MERGE aborts
 * on the first row that overflows orders.amount, so the ceiling excludes those rows (and the rows
 * with no amount) by a precomputed WHERE (amount < 10^10) that the real loader cannot know in
 * advance.
 */
import pg from 'pg';
import { withBenchDatabase, type BenchDatabaseOptions } from './bench-database.js';
import { fmtMs, fmtRate } from './figures.js';
import { ORDERS_AMOUNT_LIMIT } from './generate.js';
import { runMeasured } from './measured-child.js';

export interface CeilingMeasurement {
  rows: number;
  copyMs: number;
  mergeMs: number;
  updateMs: number;
  wallMs: number;
  rowsPerSec: number;
  excludedOverflow: number;
  merged: number;
}

export async function measureCeiling(
  options: BenchDatabaseOptions & { log: (line: string) => void },
  label: string,
  file: string,
  rows: number,
): Promise<CeilingMeasurement> {
  return withBenchDatabase(options, label, async (url) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const t0 = performance.now();
      const copy = await runMeasured('psql', [
        url,
        '-v',
        'ON_ERROR_STOP=1',
        '-q',
        '-c',
        `\\copy order_stage (source_key, customer_id, order_date, amount, currency) FROM '${file.replace(/'/g, "''")}' WITH (FORMAT csv, HEADER true)`,
      ]);
      if (copy.code !== 0) throw new Error(`psql \\copy failed: ${copy.stderr}`);
      const t1 = performance.now();
      await client.query('BEGIN');
      // Precomputed WHERE: rows with no amount (validation) and rows that would overflow
      // orders.amount numeric(12,2) are excluded, otherwise the one MERGE would abort.
      const merge = await client.query(`
        MERGE INTO orders o
        USING (SELECT source_key, customer_id, order_date, amount, currency
                 FROM order_stage
                WHERE amount IS NOT NULL AND amount < ${ORDERS_AMOUNT_LIMIT}) src
        ON o.source_key = src.source_key
        WHEN MATCHED AND (o.customer_id, o.order_date, o.amount, o.currency)
                         IS DISTINCT FROM (src.customer_id, src.order_date, src.amount, src.currency) THEN
          UPDATE SET customer_id = src.customer_id, order_date = src.order_date, amount = src.amount,
                     currency = src.currency, updated_at = now()
        WHEN NOT MATCHED THEN
          INSERT (source_key, customer_id, order_date, amount, currency)
          VALUES (src.source_key, src.customer_id, src.order_date, src.amount, src.currency)`);
      const t2 = performance.now();
      await client.query(`
        UPDATE order_stage
           SET process_status = CASE WHEN amount IS NULL OR amount >= ${ORDERS_AMOUNT_LIMIT} THEN 'ERROR' ELSE 'DONE' END,
               error_code     = CASE WHEN amount IS NULL THEN 'INVALID_AMOUNT'
                                     WHEN amount >= ${ORDERS_AMOUNT_LIMIT} THEN '22003' END,
               attempt_count  = attempt_count + 1,
               processed_at   = now(),
               updated_at     = now()`);
      await client.query('COMMIT');
      const t3 = performance.now();
      const excluded = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM order_stage WHERE amount >= ${ORDERS_AMOUNT_LIMIT}`,
      );
      const m: CeilingMeasurement = {
        rows,
        copyMs: t1 - t0,
        mergeMs: t2 - t1,
        updateMs: t3 - t2,
        wallMs: t3 - t0,
        rowsPerSec: rows / ((t3 - t0) / 1000),
        excludedOverflow: excluded.rows[0]?.n ?? 0,
        merged: merge.rowCount ?? 0,
      };
      options.log(
        `  ceiling ${label.padEnd(13)} ${fmtMs(m.wallMs)} (COPY ${fmtMs(m.copyMs)} = ${fmtRate(rows / (m.copyMs / 1000))}, ` +
          `MERGE ${fmtMs(m.mergeMs)}, UPDATE+COMMIT ${fmtMs(m.updateMs)})  ${fmtRate(m.rowsPerSec)}  ` +
          `merged ${m.merged}, overflow rows excluded by WHERE: ${m.excludedOverflow}`,
      );
      return m;
    } finally {
      await client.end();
    }
  });
}
