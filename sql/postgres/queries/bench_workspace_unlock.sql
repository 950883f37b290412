SELECT pg_advisory_unlock($1, hashtext($2)) AS unlocked;
