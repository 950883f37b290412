-- A bench workspace's owner table (src/engine/oracle/workspaces.ts): who created the
-- workspace, for the log of the bench that drops it after a crash. workspace_owner is
-- replaced by the workspace's name for it (OLB_<8 hex>_OWNER) before the statement is sent.
CREATE TABLE workspace_owner (
  host       VARCHAR2(255 CHAR)       NOT NULL,
  pid        NUMBER(10)               NOT NULL,
  started_at TIMESTAMP WITH TIME ZONE DEFAULT SYSTIMESTAMP NOT NULL
)
