-- Held by the bench's own session until its workspace is dropped: the workspace is alive
-- while this lock is held. Released by that session's next DDL, ROLLBACK, or its end.
LOCK TABLE workspace_owner IN EXCLUSIVE MODE
