INSERT INTO load_run (command, file_name, file_size, file_sha256, host, pid)
VALUES (:command, :file_name, :file_size, :file_sha256, :host, :pid)
RETURNING run_id INTO :run_id
