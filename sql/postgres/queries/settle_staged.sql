-- After a settled COPY: check the DONE rows against processing's rules and merge them (migration
-- 015); $1 the last stage_id before the COPY, $2 the load, $3 how many the COPY wrote DONE.
-- Returns the rows merged, or -1: the batch is then staged again as before.
SELECT order_loader_settle_staged($1::bigint, $2::bigint, $3::integer) AS settled;
