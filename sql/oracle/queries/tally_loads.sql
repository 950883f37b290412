-- Up to 20 load ids per execution (unused slots bound NULL), so that the index
-- ix_order_stage_load (load_id; migration 006) serves it; the engine sums the slices.
SELECT process_status, COUNT(*) AS n
  FROM order_stage
 WHERE load_id IN (:id1, :id2, :id3, :id4, :id5, :id6, :id7, :id8, :id9, :id10,
                   :id11, :id12, :id13, :id14, :id15, :id16, :id17, :id18, :id19, :id20)
 GROUP BY process_status
