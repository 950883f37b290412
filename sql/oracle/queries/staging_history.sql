-- What was committed of a file's staging (sql/postgres/queries/staging_history.sql): the latest
-- load or stage run of its identity (sha256, and the encoding, delimiter and load profile hash of
-- its 'invoked' event; runs recorded before these were kept read UTF-8, ',' and the built-in format) that committed a staging
-- fact, a 'staged' event (complete) or a 'staged_checkpoint' (a batch). A later run that
-- committed none (killed right after its row was inserted, or before its first batch) does not
-- hide it. INVOKED is the detail of that run's first 'invoked' event (the engine reads loadId
-- from it; fallback: run_id); CHECKPOINT the detail of the last 'staged_checkpoint' of that run's
-- load (the loadId of the checkpoint's detail, else its run_id; compared as text, as JSON_VALUE
-- returns it) by any run of the same bytes, where to resume and the counts a skip carries: a run
-- that skipped the file commits a 'staged' event and no checkpoint, and read from its own events
-- the next rerun would count none of the lines the load rejected (and exit 0). Events are found
-- by seq through the primary key (run_id, seq); STAGED is 1 or 0 (no BOOLEAN in SQL before
-- 23ai). FETCH FIRST is legal here: nothing is locked.
WITH runs AS (
  SELECT e.run_id,
         MIN(CASE WHEN e.event = 'invoked' THEN e.seq END) AS invoked_seq,
         MAX(CASE WHEN e.event = 'staged' THEN 1 ELSE 0 END) AS staged,
         MAX(CASE WHEN e.event IN ('staged', 'staged_checkpoint') THEN 1 ELSE 0 END) AS committed
    FROM load_run r
    JOIN load_run_event e ON e.run_id = r.run_id
   WHERE r.file_sha256 = :sha256
     AND r.command IN ('load', 'stage')
   GROUP BY e.run_id
),
r AS (
  SELECT runs.run_id, runs.invoked_seq, runs.staged
    FROM runs
    JOIN load_run_event inv ON inv.run_id = runs.run_id AND inv.seq = runs.invoked_seq
   WHERE runs.committed = 1
     AND NVL(JSON_VALUE(inv.detail, '$.encoding'), 'utf-8') = :read_encoding
     AND NVL(JSON_VALUE(inv.detail, '$.delimiter'), ',') = :read_delimiter
     AND NVL(JSON_VALUE(inv.detail, '$.profile.sha256'), 'builtin') = :read_profile
   ORDER BY runs.run_id DESC
   FETCH FIRST 1 ROW ONLY
),
cp AS (
  SELECT e.run_id, e.seq
    FROM r
    JOIN load_run_event inv ON inv.run_id = r.run_id AND inv.seq = r.invoked_seq
    JOIN load_run l ON l.file_sha256 = :sha256 AND l.command IN ('load', 'stage') AND l.run_id <= r.run_id
    JOIN load_run_event e ON e.run_id = l.run_id AND e.event = 'staged_checkpoint'
   WHERE NVL(JSON_VALUE(e.detail, '$.loadId'), TO_CHAR(l.run_id)) = NVL(JSON_VALUE(inv.detail, '$.loadId'), TO_CHAR(r.run_id))
   ORDER BY e.run_id DESC, e.seq DESC
   FETCH FIRST 1 ROW ONLY
)
SELECT r.run_id,
       inv.detail AS invoked,
       r.staged,
       cpe.detail AS checkpoint
  FROM r
  JOIN load_run_event inv ON inv.run_id = r.run_id AND inv.seq = r.invoked_seq
  LEFT JOIN cp ON 1 = 1
  LEFT JOIN load_run_event cpe ON cpe.run_id = cp.run_id AND cpe.seq = cp.seq
