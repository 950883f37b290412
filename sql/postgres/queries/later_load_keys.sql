-- The keys of a staging batch of a load begun before the run (a resumed load, or a file of a set
-- staged again at its set's load of it) whose stage row a load begun after it wrote (load ids are
-- run ids, taken in the order loads begin). Load order is the order in which loads begin: such a
-- key's line in the file is earlier than that load's and must not be staged over it
-- (src/pipeline/stage.ts, StageFileOptions.yieldToLaterLoads). Not the loads of $3: greater ids
-- that count as begun no later (src/pipeline/restaged-sets.ts, notLaterLoads). In the batch's
-- transaction, before order_loader_stage_batch.
-- A load staged the key when it wrote the row (load_id) or when its line equalled the row and
-- left it as it was (order_stage_unchanged, migration 020): either is a later load's line. By
-- the primary key of each, one probe per key.
-- $1: the batch's source keys; $2: the load the batch counts as begun at; $3: the loads not later.
SELECT source_key
  FROM order_stage
 WHERE source_key = ANY ($1::text[])
   AND load_id > $2::bigint
   AND load_id <> ALL ($3::bigint[])
UNION
SELECT source_key
  FROM order_stage_unchanged
 WHERE source_key = ANY ($1::text[])
   AND load_id > $2::bigint
   AND load_id <> ALL ($3::bigint[])
