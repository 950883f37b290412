SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked;
