-- The latest load or stage run of a file (by sha256) and how far its staging got: a
-- 'staged' event means complete; otherwise the last 'staged_checkpoint' is where to resume.
SELECT r.run_id,
       (SELECT e.detail FROM load_run_event e
         WHERE e.run_id = r.run_id AND e.event = 'invoked' ORDER BY e.seq LIMIT 1) AS invoked,
       EXISTS (SELECT 1 FROM load_run_event e WHERE e.run_id = r.run_id AND e.event = 'staged') AS staged,
       (SELECT e.detail FROM load_run_event e
         WHERE e.run_id = r.run_id AND e.event = 'staged_checkpoint'
         ORDER BY e.seq DESC LIMIT 1) AS checkpoint
  FROM load_run r
 WHERE r.file_sha256 = $1
   AND r.command IN ('load', 'stage')
 ORDER BY r.run_id DESC
 LIMIT 1;
