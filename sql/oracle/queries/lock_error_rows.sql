-- Lock the next batch of the ERROR rows a `retry` chose (sql/postgres/queries/lock_error_rows.sql).
-- Each selector list is either not given (:by_<name> = 0, its slots bound NULL) or given
-- (:by_<name> = 1) with up to 20 values in its slots :<name>1..:<name>20 (unused slots bound
-- NULL, as in tally_loads.sql); the conditions combine with AND. A longer list is run in
-- slices by the engine, in the same transaction; the slices of a list are disjoint, so the
-- union of the slices' rows is the answer. Values are bound, never written into the text.
--
-- The batch is the stage_id range :after_stage_id < stage_id <= :up_to_stage_id, where
-- :up_to_stage_id is the last of the first batch-size matching rows that find_error_rows.sql
-- (no lock, FETCH FIRST) returned just before in the same transaction: FETCH FIRST with
-- FOR UPDATE is ORA-02014, and Oracle locks every row of a FOR UPDATE cursor when it is
-- opened, so the range is what keeps the locks to one batch.
--
-- FOR UPDATE, not SKIP LOCKED: an operator's retry waits for a chunk that holds one of these rows
-- rather than silently skipping it, but not without bound: WAIT 86400 is replaced by the
-- transaction's --row-lock-wait in whole seconds (boundedWait in src/engine/oracle/merge.ts;
-- no limit: plain FOR UPDATE), past which ORA-30006 rolls the batch back (transient: run again).
-- The engine fetches every row.
--
-- Values come back as canonical text: TO_CHAR with explicit formats, timestamps as UTC text.
-- Walks ix_order_stage_error (migrations/004_error_rows_index.sql), which holds the ERROR rows
-- only: the CASE expression is that index's key, written identically so that the optimizer
-- can use it, and the hint pins the ordered range scan (without statistics after a big load,
-- or with a FETCH FIRST the optimizer underrates, it may prefer a full scan and a sort).
-- A row of a load held for its control totals is neither chosen nor locked
-- (sql/postgres/queries/lock_error_rows.sql); control_held_errors.sql counts what it left.
-- A row of a load an unfinished hold set holds (load_hold_set names the load: migration 017; a
-- killed run's set, until a run stages its files whole or `recover --older-than` gives it up:
-- hold_set_release.sql) is neither chosen nor locked either: a file of the set not staged yet may
-- repeat its key, and an earlier line never wins over a later one.
-- The control-hold question, asked per row: ix_load_run_event_control
-- (migrations/014_control_hold_index.sql) has the event, the JSON_VALUE as written here and run_id as its keys (PostgreSQL's twin measured it).
SELECT /*+ INDEX_ASC(order_stage ix_order_stage_error) */
       stage_id,
       source_key,
       TO_CHAR(customer_id) AS customer_id,
       TO_CHAR(order_date, 'YYYY-MM-DD') AS order_date,
       TO_CHAR(amount, 'FM99999999999999990D00', 'NLS_NUMERIC_CHARACTERS=''.,''') AS amount,
       currency,
       process_status,
       attempt_count,
       load_id,
       line_no,
       error_code,
       error_message,
       TO_CHAR(SYS_EXTRACT_UTC(updated_at), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS updated_at
  FROM order_stage
 WHERE CASE WHEN process_status = 'ERROR' THEN stage_id END > :after_stage_id
   AND (:by_stage_id = 0
        OR stage_id IN (:stage_id1, :stage_id2, :stage_id3, :stage_id4, :stage_id5,
                        :stage_id6, :stage_id7, :stage_id8, :stage_id9, :stage_id10,
                        :stage_id11, :stage_id12, :stage_id13, :stage_id14, :stage_id15,
                        :stage_id16, :stage_id17, :stage_id18, :stage_id19, :stage_id20))
   AND (:by_source_key = 0
        OR source_key IN (:source_key1, :source_key2, :source_key3, :source_key4, :source_key5,
                          :source_key6, :source_key7, :source_key8, :source_key9, :source_key10,
                          :source_key11, :source_key12, :source_key13, :source_key14, :source_key15,
                          :source_key16, :source_key17, :source_key18, :source_key19, :source_key20))
   AND (:by_error_code = 0
        OR error_code IN (:error_code1, :error_code2, :error_code3, :error_code4, :error_code5,
                          :error_code6, :error_code7, :error_code8, :error_code9, :error_code10,
                          :error_code11, :error_code12, :error_code13, :error_code14, :error_code15,
                          :error_code16, :error_code17, :error_code18, :error_code19, :error_code20))
   AND (:by_load_id = 0
        OR load_id IN (:load_id1, :load_id2, :load_id3, :load_id4, :load_id5,
                       :load_id6, :load_id7, :load_id8, :load_id9, :load_id10,
                       :load_id11, :load_id12, :load_id13, :load_id14, :load_id15,
                       :load_id16, :load_id17, :load_id18, :load_id19, :load_id20))
   AND NOT EXISTS (SELECT 1
                     FROM load_run_event c
                    WHERE c.event = 'control_held'
                      AND c.run_id >= order_stage.load_id
                      AND JSON_VALUE(c.detail, '$.loadId') = TO_CHAR(order_stage.load_id)
                      AND NOT EXISTS (SELECT 1
                                        FROM load_run_event a
                                       WHERE a.event = 'control_accepted'
                                         AND a.run_id >= order_stage.load_id
                                         AND JSON_VALUE(a.detail, '$.loadId') = TO_CHAR(order_stage.load_id)))
   AND NOT EXISTS (SELECT 1 FROM load_hold_set h WHERE h.load_id = order_stage.load_id)
   AND CASE WHEN process_status = 'ERROR' THEN stage_id END <= :up_to_stage_id
 ORDER BY CASE WHEN process_status = 'ERROR' THEN stage_id END
   FOR UPDATE WAIT 86400
