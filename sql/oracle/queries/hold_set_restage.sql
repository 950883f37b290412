-- A run of part of the set staged a file the set's own run had not begun (migration 013;
-- sql/postgres/queries/hold_set_restage.sql).
UPDATE load_hold_set
   SET restage = 1
 WHERE set_id = :set_id
