-- The 'invoked' event of each of up to 20 loads (unused slots bound NULL; a load's id is the
-- run id that started it): its detail records the file's header and delimiter
-- (sql/postgres/queries/file_layouts.sql). The engine runs it per slice.
SELECT e.run_id, e.detail
  FROM load_run_event e
 WHERE e.run_id IN (:id1, :id2, :id3, :id4, :id5, :id6, :id7, :id8, :id9, :id10,
                    :id11, :id12, :id13, :id14, :id15, :id16, :id17, :id18, :id19, :id20)
   AND e.event = 'invoked'
