-- Up to 20 run ids per execution (unused slots bound NULL); the engine runs it per slice.
SELECT e.run_id, e.seq, e.event, e.detail,
       TO_CHAR(SYS_EXTRACT_UTC(e.at), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS at_utc
  FROM load_run_event e
 WHERE e.run_id IN (:id1, :id2, :id3, :id4, :id5, :id6, :id7, :id8, :id9, :id10,
                    :id11, :id12, :id13, :id14, :id15, :id16, :id17, :id18, :id19, :id20)
 ORDER BY e.run_id, e.seq
