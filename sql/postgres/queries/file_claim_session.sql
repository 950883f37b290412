-- A claim session's settings (src/engine/postgres/file-claims.ts), and its mark: a session-level
-- advisory lock in the class $2 ('OLFS') on the token $3, random and the session's own, held for
-- the session's whole life, by which a staging batch tells the session still lives
-- (file_claim_held.sql). A claim waits at most $1 ms for another session's (lock_timeout). The
-- session idles while its file stages: a server's idle_session_timeout (PostgreSQL 14 and later)
-- would end it and its claim, so it is off here.
SELECT pg_advisory_lock($2, $3) AS marked,
       set_config('lock_timeout', $1::text, false) AS lock_timeout,
       CASE WHEN current_setting('server_version_num')::int >= 140000
            THEN set_config('idle_session_timeout', '0', false) END AS idle_session_timeout
