-- A run of part of set $1 staged a file the set's own run had not begun (migration 018): the run
-- that completes the set stages each of its files again, in order.
UPDATE load_hold_set
   SET restage = true
 WHERE set_id = $1::bigint;
