-- `retry`: the ERROR rows a selector chooses that belong to loads held for their control totals
-- or held by an unfinished hold set (load_hold_set), counted by load, with which holds apply
-- (control, by_set: 1 or 0; sql/postgres/queries/control_held_errors.sql): the outer query keeps
-- the loads either holds. The selector lists are the slot binds of lock_error_rows.sql; a longer
-- list is run in slices by the engine, whose counts it adds (the slices of a list are disjoint).
-- Walks ix_order_stage_error: the CASE expression is its key.
SELECT *
  FROM (
SELECT g.load_id, g.n,
       CASE WHEN EXISTS (SELECT 1
                           FROM load_run_event c
                          WHERE c.event = 'control_held'
                            AND c.run_id >= g.load_id
                            AND JSON_VALUE(c.detail, '$.loadId') = TO_CHAR(g.load_id))
             AND NOT EXISTS (SELECT 1
                               FROM load_run_event a
                              WHERE a.event = 'control_accepted'
                                AND a.run_id >= g.load_id
                                AND JSON_VALUE(a.detail, '$.loadId') = TO_CHAR(g.load_id))
            THEN 1 ELSE 0 END AS control,
       CASE WHEN EXISTS (SELECT 1 FROM load_hold_set s WHERE s.load_id = g.load_id)
            THEN 1 ELSE 0 END AS by_set
  FROM (SELECT load_id, COUNT(*) AS n
          FROM order_stage
         WHERE CASE WHEN process_status = 'ERROR' THEN stage_id END > 0
           AND load_id IS NOT NULL
           AND (:by_stage_id = 0
                OR stage_id IN (:stage_id1, :stage_id2, :stage_id3, :stage_id4, :stage_id5,
                                :stage_id6, :stage_id7, :stage_id8, :stage_id9, :stage_id10,
                                :stage_id11, :stage_id12, :stage_id13, :stage_id14, :stage_id15,
                                :stage_id16, :stage_id17, :stage_id18, :stage_id19, :stage_id20))
           AND (:by_source_key = 0
                OR source_key IN (:source_key1, :source_key2, :source_key3, :source_key4, :source_key5,
                                  :source_key6, :source_key7, :source_key8, :source_key9, :source_key10,
                                  :source_key11, :source_key12, :source_key13, :source_key14, :source_key15,
                                  :source_key16, :source_key17, :source_key18, :source_key19, :source_key20))
           AND (:by_error_code = 0
                OR error_code IN (:error_code1, :error_code2, :error_code3, :error_code4, :error_code5,
                                  :error_code6, :error_code7, :error_code8, :error_code9, :error_code10,
                                  :error_code11, :error_code12, :error_code13, :error_code14, :error_code15,
                                  :error_code16, :error_code17, :error_code18, :error_code19, :error_code20))
           AND (:by_load_id = 0
                OR load_id IN (:load_id1, :load_id2, :load_id3, :load_id4, :load_id5,
                               :load_id6, :load_id7, :load_id8, :load_id9, :load_id10,
                               :load_id11, :load_id12, :load_id13, :load_id14, :load_id15,
                               :load_id16, :load_id17, :load_id18, :load_id19, :load_id20))
         GROUP BY load_id) g
       )
 WHERE control = 1 OR by_set = 1
 ORDER BY load_id
