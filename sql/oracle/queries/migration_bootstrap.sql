-- Created by migrate() before anything else, each on its own; ORA-00955 (name already used)
-- means another process or an earlier run created it, and is accepted when that table, with
-- its columns, is there (src/engine/oracle/schema-check.ts).
-- Blocks separated by a line holding only "/", as in migrations/.
CREATE TABLE order_loader_migration (
  version    NUMBER(10)          NOT NULL,
  name       VARCHAR2(200 CHAR)  NOT NULL,
  applied_at TIMESTAMP WITH TIME ZONE DEFAULT SYSTIMESTAMP NOT NULL,
  CONSTRAINT pk_order_loader_migration PRIMARY KEY (version)
)
/
-- Holds no rows: migrate() locks it IN EXCLUSIVE MODE on a connection of its own for the
-- whole migration (see src/engine/oracle/migrations.ts for why not order_loader_migration).
CREATE TABLE order_loader_migration_lock (
  id NUMBER(1)
)
