-- A file identity's claim (src/engine/postgres/file-claims.ts): a session-level advisory lock
-- in the class $1 ('OLFC'), keyed by the hash of the identity's key $2. Waits at most the
-- claim session's lock_timeout (then SQLSTATE 55P03: another session holds it). Held until
-- file_claim_release.sql or the end of the session, whatever ends it.
SELECT pg_advisory_lock($1, hashtext($2));
