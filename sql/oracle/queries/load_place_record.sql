-- Where a load stands in load order (migrations/016_load_places.sql; the PostgreSQL twin is
-- sql/postgres/queries/load_place_record.sql, INSERT ... ON CONFLICT DO NOTHING): executeMany, one
-- iteration per load, in load id order; a load that has its place already keeps it (a part's load
-- at itself, a set's load moved before), so only WHEN NOT MATCHED. A place outside the CHECK
-- (began_at after the load, a negative place) fails the iteration with ORA-02290.
MERGE INTO load_place p
USING (SELECT :load_id AS load_id, :began_at AS began_at, :place AS place FROM dual) src
ON (p.load_id = src.load_id)
WHEN NOT MATCHED THEN INSERT (load_id, began_at, place) VALUES (src.load_id, src.began_at, src.place)
