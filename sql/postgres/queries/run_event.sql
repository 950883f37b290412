-- seq is per run; the run's own process is its only writer.
INSERT INTO load_run_event (run_id, seq, event, detail)
SELECT $1, coalesce(max(seq), 0) + 1, $2, $3
  FROM load_run_event
 WHERE run_id = $1;
