-- The latest load or stage run of a file (by sha256) and how far its staging got
-- (sql/postgres/queries/staging_history.sql): a 'staged' event means complete; otherwise the
-- detail of the last 'staged_checkpoint' event is where to resume. INVOKED is the detail of
-- the run's first 'invoked' event (the engine reads loadId from it; fallback: run_id).
-- Events are found by seq through the primary key (run_id, seq); STAGED is 1 or 0 (no
-- BOOLEAN in SQL before 23ai). FETCH FIRST is legal here: nothing is locked.
WITH r AS (
  SELECT run_id
    FROM load_run
   WHERE file_sha256 = :sha256
     AND command IN ('load', 'stage')
   ORDER BY run_id DESC
   FETCH FIRST 1 ROW ONLY
),
ev AS (
  SELECT e.run_id,
         MIN(CASE WHEN e.event = 'invoked' THEN e.seq END) AS invoked_seq,
         MAX(CASE WHEN e.event = 'staged' THEN 1 ELSE 0 END) AS staged,
         MAX(CASE WHEN e.event = 'staged_checkpoint' THEN e.seq END) AS checkpoint_seq
    FROM load_run_event e
    JOIN r ON r.run_id = e.run_id
   GROUP BY e.run_id
)
SELECT r.run_id,
       inv.detail AS invoked,
       NVL(ev.staged, 0) AS staged,
       cp.detail AS checkpoint
  FROM r
  LEFT JOIN ev ON ev.run_id = r.run_id
  LEFT JOIN load_run_event inv ON inv.run_id = r.run_id AND inv.seq = ev.invoked_seq
  LEFT JOIN load_run_event cp ON cp.run_id = r.run_id AND cp.seq = ev.checkpoint_seq
