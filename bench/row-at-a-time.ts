/**
 * The row-at-a-time baseline: what a loader without set-based processing does. One INSERT …
 * ON CONFLICT into order_stage and one MERGE per row, each MERGE in its own SAVEPOINT, a status
 * UPDATE (plus an error-log INSERT for a failure) per row, COMMIT every 500 rows, prepared
 * statements. Measured on the first --row-subset rows and extrapolated (rows/s), because 1M rows
 * this way takes many minutes.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { withBenchDatabase, type BenchDatabaseOptions } from './bench-database.js';
import { fmtMs, fmtRate } from './figures.js';

export interface RowwiseMeasurement {
  rows: number;
  wallMs: number;
  rowsPerSec: number;
  extrapolatedMs: number;
}

export async function measureRowwise(
  options: BenchDatabaseOptions & { log: (line: string) => void },
  file: string,
  subset: number,
  totalRows: number,
): Promise<RowwiseMeasurement> {
  return withBenchDatabase(options, 'rowwise', async (url) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
      const t0 = performance.now();
      let n = 0;
      let lineNo = 0;
      let inTx = false;
      for await (const line of lines) {
        lineNo++;
        if (lineNo === 1) continue; // header
        if (n >= subset) break;
        n++;
        if (!inTx) {
          await client.query('BEGIN');
          inTx = true;
        }
        const [sourceKey, customerId, orderDate, amount, currency] = line.split(',');
        const amountValue = amount === undefined || amount === '' ? null : amount;
        const staged = await client.query<{ stage_id: number }>({
          name: 'rw_stage',
          text: `INSERT INTO order_stage (source_key, customer_id, order_date, amount, currency, load_id, line_no)
                 VALUES ($1, $2, $3, $4, $5, 1, $6)
                 ON CONFLICT (source_key) DO UPDATE SET customer_id = EXCLUDED.customer_id,
                   order_date = EXCLUDED.order_date, amount = EXCLUDED.amount, currency = EXCLUDED.currency,
                   process_status = 'READY', line_no = EXCLUDED.line_no, updated_at = now()
                 RETURNING stage_id`,
          values: [sourceKey, customerId, orderDate, amountValue, currency, lineNo],
        });
        const stageId = staged.rows[0]?.stage_id;
        let error: { code: string; message: string; phase: string } | null = null;
        if (amountValue === null) {
          error = { code: 'INVALID_AMOUNT', message: 'amount is missing', phase: 'VALIDATE' };
        } else {
          await client.query('SAVEPOINT r');
          try {
            await client.query({
              name: 'rw_merge',
              text: `MERGE INTO orders o
                     USING (SELECT $1::text AS source_key, $2::bigint AS customer_id, $3::date AS order_date,
                                   $4::numeric AS amount, $5::text AS currency) src
                     ON o.source_key = src.source_key
                     WHEN MATCHED THEN UPDATE SET customer_id = src.customer_id, order_date = src.order_date,
                          amount = src.amount, currency = src.currency, updated_at = now()
                     WHEN NOT MATCHED THEN INSERT (source_key, customer_id, order_date, amount, currency)
                          VALUES (src.source_key, src.customer_id, src.order_date, src.amount, src.currency)`,
              values: [sourceKey, customerId, orderDate, amountValue, currency],
            });
            await client.query('RELEASE SAVEPOINT r');
          } catch (e) {
            await client.query('ROLLBACK TO SAVEPOINT r');
            const err = e as { code?: string; message?: string };
            error = { code: err.code ?? 'UNKNOWN', message: err.message ?? '', phase: 'MERGE' };
          }
        }
        if (error === null) {
          await client.query({
            name: 'rw_done',
            text: `UPDATE order_stage SET process_status = 'DONE', attempt_count = attempt_count + 1,
                          processed_at = now(), updated_at = now() WHERE stage_id = $1`,
            values: [stageId],
          });
        } else {
          await client.query({
            name: 'rw_error',
            text: `UPDATE order_stage SET process_status = 'ERROR', attempt_count = attempt_count + 1, error_code = $2,
                          error_message = $3, processed_at = now(), updated_at = now() WHERE stage_id = $1`,
            values: [stageId, error.code, error.message],
          });
          await client.query({
            name: 'rw_log',
            text: `INSERT INTO order_bulk_error (stage_id, source_key, load_id, line_no, attempt_no, phase, error_code, error_message)
                   VALUES ($1, $2, 1, $3, 1, $4, $5, $6)`,
            values: [stageId, sourceKey, lineNo, error.phase, error.code, error.message],
          });
        }
        if (n % 500 === 0) {
          await client.query('COMMIT');
          inTx = false;
        }
      }
      if (inTx) await client.query('COMMIT');
      lines.close();
      const wallMs = performance.now() - t0;
      const rowsPerSec = n / (wallMs / 1000);
      const m: RowwiseMeasurement = { rows: n, wallMs, rowsPerSec, extrapolatedMs: (totalRows / rowsPerSec) * 1000 };
      options.log(
        `  row-at-a-time on the first ${n} rows: ${fmtMs(wallMs)}  ${fmtRate(rowsPerSec)}  ` +
          `(extrapolated to ${totalRows} rows: ${fmtMs(m.extrapolatedMs)})`,
      );
      return m;
    } finally {
      await client.end();
    }
  });
}
