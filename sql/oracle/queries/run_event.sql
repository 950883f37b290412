-- seq is per run; the run's own process is its only writer. Array-bound (executeMany).
INSERT INTO load_run_event (run_id, seq, event, detail)
VALUES (:run_id,
        (SELECT NVL(MAX(e.seq), 0) + 1 FROM load_run_event e WHERE e.run_id = :run_id),
        :event,
        :detail)
