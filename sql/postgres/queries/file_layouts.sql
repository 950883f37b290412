-- The 'invoked' event of each load in $1 (a load's id is the run id that started it): its
-- detail records the file's header and delimiter.
SELECT run_id, detail
  FROM load_run_event
 WHERE run_id = ANY ($1::bigint[])
   AND event = 'invoked';
