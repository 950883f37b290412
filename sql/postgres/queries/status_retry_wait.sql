SELECT count(*)::int AS n, min(next_attempt_at) AS next_due_at
  FROM order_stage
 WHERE process_status = 'RETRY_WAIT';
