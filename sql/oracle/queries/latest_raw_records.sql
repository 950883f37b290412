-- The raw text of the latest error-log row of each of up to 20 stage rows (unused slots bound
-- NULL), the load that logged it and its phase (sql/postgres/queries/latest_raw_records.sql); the engine
-- runs it per slice. "Latest" is the highest error_id of the stage row, found on the index
-- ix_order_bulk_error_stage (stage_id, error_id) before the CLOB is read.
SELECT b.stage_id, b.load_id, b.raw_record, b.phase
  FROM order_bulk_error b
 WHERE b.error_id IN (SELECT MAX(x.error_id)
                        FROM order_bulk_error x
                       WHERE x.stage_id IN (:id1, :id2, :id3, :id4, :id5, :id6, :id7, :id8, :id9, :id10,
                                            :id11, :id12, :id13, :id14, :id15, :id16, :id17, :id18, :id19, :id20)
                       GROUP BY x.stage_id)
