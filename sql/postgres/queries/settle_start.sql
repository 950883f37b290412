-- Before a settled COPY (migration 015): the last stage_id (the batch's rows come after it: PGlite
-- has one connection, nobody else inserts) and the transaction's now() as text, the processed_at
-- of the rows written DONE (what processing's DONE update writes: now() of its transaction).
SELECT coalesce(max(stage_id), 0)::bigint AS after, now()::text AS now FROM order_stage;
