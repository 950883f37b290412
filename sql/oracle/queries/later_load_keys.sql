-- For one key of a staging batch of a load begun before the run (a resumed load, or a file of a
-- set staged again at its set's load of it): the load begun after :load_id that staged the key,
-- if any, both ways a load stages a key (sql/postgres/queries/later_load_keys.sql says why):
--   :stage_load      the key's order_stage row, when a load with a greater id wrote it (load_id);
--   :unchanged_load  the key's order_stage_unchanged record (migrations/015_unchanged_loads.sql),
--                    when a load with a greater id staged a line identical to the row and left it
--                    as it was.
-- NULL when there is none. Load ids are run ids, taken in the order loads begin. The engine
-- (src/engine/oracle/later-loads.ts) leaves out the ids of the loads that count as begun no later
-- (src/pipeline/restaged-sets.ts, notLaterLoads) and yields the keys for which one id is left.
--
-- Array-executed with connection.executeMany, one iteration per key and an OUT bind pair per
-- iteration (as process_rows.sql): the whole batch in one round trip (two the first time on a
-- connection: thin mode runs a PL/SQL block's first iteration alone to learn its binds,
-- lib/thin/connection.js _execute), each iteration one probe of uq_order_stage_source and one of
-- pk_order_stage_unchanged. In the batch's transaction, before the batch is staged; it reads what
-- is committed, as PostgreSQL's query does, and locks nothing.
BEGIN
  SELECT (SELECT /*+ INDEX(s uq_order_stage_source) */ s.load_id
            FROM order_stage s
           WHERE s.source_key = :source_key
             AND s.load_id > :load_id),
         (SELECT u.load_id
            FROM order_stage_unchanged u
           WHERE u.source_key = :source_key
             AND u.load_id > :load_id)
    INTO :stage_load, :unchanged_load
    FROM dual;
END;
