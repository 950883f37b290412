-- After staging, with analyze_stage.sql: summarize the block ranges of ix_order_stage_load (BRIN,
-- migration 009) that staging appended, so that tally_loads.sql reads only the ranges that may
-- hold its load (autovacuum, which would do it too, may be off). Reads only the unsummarized
-- ranges; a concurrent chunk's updates are not blocked (SHARE UPDATE EXCLUSIVE, as ANALYZE).
SELECT brin_summarize_new_values('ix_order_stage_load'::regclass) AS ranges;
