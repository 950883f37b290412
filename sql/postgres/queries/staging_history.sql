-- What was committed of a file's staging: the latest load or stage run of its identity (sha256,
-- and the encoding, delimiter and load profile hash of its 'invoked' event; runs recorded before
-- these were kept read UTF-8, ',' and the built-in format) that committed a staging fact, a 'staged' event (complete) or a
-- 'staged_checkpoint' (a batch, which commits with its checkpoint). A later run that committed
-- none (killed right after its row was inserted, or before its first batch) does not hide it:
-- the plan follows what was committed, whatever runs came after it. The checkpoint is the last
-- 'staged_checkpoint' of that run's load (the loadId of its 'invoked' event, else its run_id),
-- by any run of the same bytes: where to resume, and the counts a skip carries. A run that skipped
-- the file commits a 'staged' event and no checkpoint: read from its own events, the next rerun
-- would count none of the lines the load rejected (and exit 0).
SELECT r.run_id,
       inv.detail AS invoked,
       EXISTS (SELECT 1 FROM load_run_event e WHERE e.run_id = r.run_id AND e.event = 'staged') AS staged,
       (SELECT e.detail FROM load_run l
          JOIN load_run_event e ON e.run_id = l.run_id
         WHERE l.file_sha256 = $1
           AND l.command IN ('load', 'stage')
           AND l.run_id <= r.run_id
           AND e.event = 'staged_checkpoint'
           AND coalesce((e.detail::jsonb ->> 'loadId')::bigint, l.run_id)
               = coalesce((inv.detail::jsonb ->> 'loadId')::bigint, r.run_id)
         ORDER BY l.run_id DESC, e.seq DESC LIMIT 1) AS checkpoint
  FROM load_run r
  JOIN LATERAL (SELECT e.detail FROM load_run_event e
                 WHERE e.run_id = r.run_id AND e.event = 'invoked' ORDER BY e.seq LIMIT 1) inv ON true
 WHERE r.file_sha256 = $1
   AND r.command IN ('load', 'stage')
   AND coalesce(inv.detail::jsonb ->> 'encoding', 'utf-8') = $2
   AND coalesce(inv.detail::jsonb ->> 'delimiter', ',') = $3
   AND coalesce(inv.detail::jsonb #>> '{profile,sha256}', 'builtin') = $4
   AND EXISTS (SELECT 1 FROM load_run_event e
                WHERE e.run_id = r.run_id AND e.event IN ('staged', 'staged_checkpoint'))
 ORDER BY r.run_id DESC
 LIMIT 1;
