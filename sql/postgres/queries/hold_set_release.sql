-- These loads' HELD rows were released (the run staged every set that held them) or given up
-- (`recover`): no set holds them any more (migration 017). $1: load_ids.
UPDATE load_hold_set
   SET load_id = NULL
 WHERE load_id = ANY ($1::bigint[]);
