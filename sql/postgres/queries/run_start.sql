INSERT INTO load_run (command, file_name, file_size, file_sha256, host, pid)
VALUES ($1, $2, $3, $4, $5, $6)
RETURNING run_id;
