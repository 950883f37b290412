INSERT INTO workspace_owner (host, pid) VALUES (:host, :pid)
