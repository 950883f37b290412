-- A run whose files repeat keys records its set before its first hold (migration 017): one row
-- per file, by its place in the run; the file whose run starts now holds its load already, so a
-- set is never without a load while its run stages. $1: set_id (the run_id of the run's first
-- file run); $2: the files' base names in order; $3: the place of the file that starts; $4: its load_id.
INSERT INTO load_hold_set (set_id, file_no, file_name, load_id)
SELECT $1::bigint, f.n - 1, f.name, CASE WHEN f.n - 1 = $3::int THEN $4::bigint END
  FROM unnest($2::text[]) WITH ORDINALITY AS f(name, n);
