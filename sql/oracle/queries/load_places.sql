-- The recorded places of the loads from :from_load on (migrations/016_load_places.sql; the
-- PostgreSQL twin is sql/postgres/queries/load_places.sql): a load begun before the run reads which
-- loads with a greater id stand no later than it (src/pipeline/load-places.ts). By the primary
-- key; few rows (only the loads of sets staged again).
SELECT load_id, began_at, place
  FROM load_place
 WHERE load_id >= :from_load
 ORDER BY load_id
