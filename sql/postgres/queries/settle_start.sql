-- Before a settled COPY (migration 015): the last stage_id (the batch's rows come after it; a
-- run's staging is one connection, processing beside it inserts no stage row, and a row of the
-- load another session inserted would make the count differ: staged as before) and the
-- transaction's now() as text, the processed_at of the rows written DONE (what processing's DONE
-- update writes: now() of its transaction).
SELECT coalesce(max(stage_id), 0)::bigint AS after, now()::text AS now FROM order_stage;
