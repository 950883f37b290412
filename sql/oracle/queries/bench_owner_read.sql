-- Who made the workspace, and whether it started more than :grace_seconds ago by the
-- database's clock (started_at is the inserting session's SYSTIMESTAMP).
SELECT host,
       TO_CHAR(pid) AS pid,
       TO_CHAR(SYS_EXTRACT_UTC(started_at), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS started_at,
       CASE WHEN started_at < SYSTIMESTAMP - NUMTODSINTERVAL(:grace_seconds, 'SECOND') THEN 1 ELSE 0 END AS past_grace
  FROM workspace_owner
