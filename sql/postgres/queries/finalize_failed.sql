-- The chunk's failures (few): ERROR or RETRY_WAIT with their error, plus one error-log row
-- each, in one statement. $1..$9 are column arrays; $10 the batch id.
-- The statement is order_loader_finalize_failed (migration 006, linear in the failed rows): a
-- function so that the UPDATE … FROM stays an index nested loop on the primary key whatever the
-- statistics (same measurement as finalize_done.sql).
SELECT order_loader_finalize_failed($1::bigint[], $2::text[], $3::integer[], $4::text[],
                                    $5::text[], $6::text[], $7::timestamptz[], $8::bigint[],
                                    $9::bigint[], $10::text);
