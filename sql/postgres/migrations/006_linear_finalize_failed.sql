-- order_loader_finalize_failed, linear in the chunk's failed rows.
--
-- Why: the version of migration 003 wrote the error-log rows from `f JOIN upd` — two CTE scans
-- — and its SET clauses (no hash or merge join) left the planner a nested loop over them:
-- quadratic in the failed rows. Measured on 2 cores (PostgreSQL 15): 2,000 failed rows 0.56 s,
-- 8,000 7.4 s, 16,000 39 s (3,998,000 rows removed by the join filter at 2,000), so a file
-- whose every row fails took minutes per chunk at large chunk sizes. Here the UPDATE returns
-- the error-log columns itself (RETURNING may name the columns of its FROM list), so there is
-- no second join: one index probe per failed row on the primary key, as for finalize_done.
CREATE OR REPLACE FUNCTION order_loader_finalize_failed(
  p_stage_id bigint[], p_status text[], p_attempt_no integer[], p_phase text[], p_code text[],
  p_message text[], p_next_attempt_at timestamptz[], p_load_id bigint[], p_line_no bigint[],
  p_batch_id text)
RETURNS void
LANGUAGE sql
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $$
  WITH f AS (
    SELECT *
      FROM unnest(p_stage_id, p_status, p_attempt_no, p_phase, p_code, p_message,
                  p_next_attempt_at, p_load_id, p_line_no)
        AS t(stage_id, status, attempt_no, phase, code, message, next_attempt_at, load_id, line_no)
  ),
  upd AS (
    UPDATE order_stage s
       SET process_status  = f.status,
           attempt_count   = f.attempt_no,
           batch_id        = p_batch_id,
           processed_at    = now(),
           updated_at      = now(),
           error_code      = f.code,
           error_message   = left(f.message, 1000),
           next_attempt_at = f.next_attempt_at
      FROM f
     WHERE s.stage_id = f.stage_id
    RETURNING s.stage_id, s.source_key, f.load_id, f.line_no, f.attempt_no, f.phase, f.code, f.message
  )
  INSERT INTO order_bulk_error
         (stage_id, source_key, load_id, line_no, batch_id, attempt_no, phase, error_code, error_message)
  SELECT upd.stage_id, upd.source_key, upd.load_id, upd.line_no, p_batch_id, upd.attempt_no, upd.phase,
         upd.code, left(upd.message, 1000)
    FROM upd;
$$;
