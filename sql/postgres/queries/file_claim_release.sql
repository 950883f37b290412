-- The claim of file_claim.sql given up by the session that holds it.
SELECT pg_advisory_unlock($1, hashtext($2)) AS released;
