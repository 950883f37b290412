/**
 * What a load left, for comparing two ways of doing the same thing (COPY or the function,
 * processing in the database or in the client, settling while staging or not): order_stage
 * (stage_ids themselves left out: a rolled-back COPY uses some; their order kept as `position`),
 * orders and the error log, each in an order that does not depend on how chunks interleaved.
 * Batch ids and times differ between two runs and are reduced to whether they are set.
 */
import type { TestDatabase } from './databases.js';

export interface OutcomeSnapshot {
  stage: unknown[];
  orders: unknown[];
  errors: unknown[];
}

export async function outcomeSnapshot(db: TestDatabase): Promise<OutcomeSnapshot> {
  return {
    stage: await db.sql(
      `SELECT source_key, customer_id::text AS customer_id, order_date::text AS order_date, amount::text AS amount, currency,
              process_status, error_code, error_message, attempt_count, transient_failures, load_id::text AS load_id,
              line_no::text AS line_no, next_attempt_at IS NULL AS no_next, batch_id IS NULL AS no_batch,
              processed_at IS NULL AS never_processed, attributes::text AS attributes,
              row_number() OVER (ORDER BY stage_id)::int AS position
         FROM order_stage ORDER BY source_key`,
    ),
    // order_id left out: rows settled while staging are merged before those processing merges
    orders: await db.sql(
      'SELECT source_key, customer_id::text AS c, order_date::text AS d, amount::text AS a, currency FROM orders ORDER BY source_key',
    ),
    errors: await db.sql(
      `SELECT b.source_key, b.load_id::text AS load_id, b.line_no::text AS line_no, b.attempt_no, b.phase, b.error_code,
              b.error_message, b.raw_record, s.source_key AS stage_key
         FROM order_bulk_error b LEFT JOIN order_stage s ON s.stage_id = b.stage_id
        ORDER BY b.source_key, b.attempt_no, b.phase, b.error_id`, // two workers on a server: chunks commit in either order
    ),
  };
}
