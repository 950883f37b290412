-- The file and start of the loads `status` shows (sql/postgres/queries/status_load_runs.sql):
-- up to 20 load ids per execution (unused slots bound NULL), and with :since_utc (UTC text
-- 'YYYY-MM-DDTHH24:MI:SS.FF3', not NULL) every run started since then.
SELECT run_id, file_name,
       TO_CHAR(SYS_EXTRACT_UTC(started_at), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS started_at
  FROM load_run
 WHERE run_id IN (:id1, :id2, :id3, :id4, :id5, :id6, :id7, :id8, :id9, :id10,
                  :id11, :id12, :id13, :id14, :id15, :id16, :id17, :id18, :id19, :id20)
    OR started_at >= FROM_TZ(TO_TIMESTAMP(:since_utc, 'YYYY-MM-DD"T"HH24:MI:SS.FF3'), '+00:00')
 ORDER BY run_id
