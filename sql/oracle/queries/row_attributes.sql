-- The stored attributes of up to 20 stage rows (unused slots bound NULL) that a `retry` corrects
-- some of (sql/postgres/queries/row_attributes.sql); the engine runs it per slice, in the
-- batch's transaction, after the rows were locked.
SELECT stage_id, attributes
  FROM order_stage
 WHERE stage_id IN (:id1, :id2, :id3, :id4, :id5, :id6, :id7, :id8, :id9, :id10,
                    :id11, :id12, :id13, :id14, :id15, :id16, :id17, :id18, :id19, :id20)
