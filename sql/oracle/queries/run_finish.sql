-- :message is cut to 4000 bytes by the engine (VARCHAR2(4000 BYTE)).
UPDATE load_run
   SET status = :status, finished_at = SYSTIMESTAMP, counts = :counts, message = :message
 WHERE run_id = :run_id
