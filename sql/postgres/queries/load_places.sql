-- The recorded places of the loads from $1 on (migration 021): a load begun before the run reads
-- which loads with a greater id stand no later than it (src/pipeline/load-places.ts). By the
-- primary key; few rows (only the loads of sets staged again).
SELECT load_id, began_at, place
  FROM load_place
 WHERE load_id >= $1::bigint
 ORDER BY load_id
