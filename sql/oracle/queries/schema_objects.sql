-- What the schema holds for one table: the table itself, its columns, its indexes and its
-- constraints (names as the dictionary stores them: unquoted names upper-case). migrate()
-- checks each migration's objects against it (src/engine/oracle/schema-check.ts). DETAIL is
-- what must match besides the name: for the table, 'Y' when it is a global temporary table
-- ('N' when permanent); for an index, its columns in order, separated by ',', an expression
-- (a function-based index, or a DESC column) spelled '(expression)'.
SELECT 'TABLE' AS kind, table_name AS name, temporary AS detail
  FROM user_tables
 WHERE table_name = :table_name
UNION ALL
SELECT 'COLUMN', column_name, NULL
  FROM user_tab_columns
 WHERE table_name = :table_name
UNION ALL
SELECT 'INDEX', i.index_name,
       (SELECT LISTAGG(CASE WHEN x.index_name IS NULL THEN c.column_name ELSE '(expression)' END, ',')
                 WITHIN GROUP (ORDER BY c.column_position)
          FROM user_ind_columns c
          LEFT JOIN user_ind_expressions x
            ON x.index_name = c.index_name
           AND x.column_position = c.column_position
         WHERE c.index_name = i.index_name)
  FROM user_indexes i
 WHERE i.table_name = :table_name
UNION ALL
SELECT 'CONSTRAINT', constraint_name, NULL
  FROM user_constraints
 WHERE table_name = :table_name
