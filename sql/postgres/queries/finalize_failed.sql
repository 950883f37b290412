-- The chunk's failures (few): ERROR or RETRY_WAIT with their error, plus one error-log row
-- each, in one statement. $1..$10 are column arrays ($3 attempt_count after this attempt, also
-- the error log's attempt_no; $4 transient_failures after it); $11 the batch id.
-- The statement is order_loader_finalize_failed (migration 007, linear in the failed rows as in
-- 006): a function so that the UPDATE … FROM stays an index nested loop on the primary key
-- whatever the statistics (same measurement as finalize_done.sql).
SELECT order_loader_finalize_failed($1::bigint[], $2::text[], $3::integer[], $4::integer[],
                                    $5::text[], $6::text[], $7::text[], $8::timestamptz[],
                                    $9::bigint[], $10::bigint[], $11::text);
