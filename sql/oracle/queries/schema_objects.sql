-- What the schema holds for one table: the table itself, its columns, its indexes and its
-- constraints (names as the dictionary stores them: unquoted names upper-case). migrate()
-- checks each migration's objects against it (src/engine/oracle/schema-check.ts).
SELECT 'TABLE' AS kind, table_name AS name
  FROM user_tables
 WHERE table_name = :table_name
UNION ALL
SELECT 'COLUMN', column_name
  FROM user_tab_columns
 WHERE table_name = :table_name
UNION ALL
SELECT 'INDEX', index_name
  FROM user_indexes
 WHERE table_name = :table_name
UNION ALL
SELECT 'CONSTRAINT', constraint_name
  FROM user_constraints
 WHERE table_name = :table_name
