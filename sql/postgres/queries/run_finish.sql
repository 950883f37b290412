UPDATE load_run
   SET status = $2, finished_at = now(), counts = $3, message = left($4, 4000)
 WHERE run_id = $1;
