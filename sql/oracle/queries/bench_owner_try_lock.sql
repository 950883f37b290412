-- Another bench's test of a workspace it found: ORA-00054 means its owner session holds the
-- lock (alive); success means that session is gone.
LOCK TABLE workspace_owner IN EXCLUSIVE MODE NOWAIT
