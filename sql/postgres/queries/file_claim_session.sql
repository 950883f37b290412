-- A claim session's settings (src/engine/postgres/file-claims.ts), and its backend pid, by which
-- a staging batch finds the claim in pg_locks (file_claim_held.sql). A claim waits at most $1 ms
-- for another session's (lock_timeout). The session idles while its file stages: a server's
-- idle_session_timeout (PostgreSQL 14 and later) would end it and its claim, so it is off here.
SELECT pg_backend_pid() AS pid,
       set_config('lock_timeout', $1::text, false) AS lock_timeout,
       CASE WHEN current_setting('server_version_num')::int >= 140000
            THEN set_config('idle_session_timeout', '0', false) END AS idle_session_timeout
