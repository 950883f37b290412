-- The bench workspaces in this schema (src/engine/oracle/workspaces.ts): each has an owner
-- table OLB_<8 hex>_OWNER. CREATED_PAST_GRACE is 1 when that table was created more than
-- :grace_seconds ago, by the database's clock (CREATED and SYSDATE are both server time); it
-- decides only for an owner table without its row (a bench that died between the two).
-- USER_OBJECTS: the user's own objects, no grant needed.
SELECT object_name AS owner_table,
       CASE WHEN created < SYSDATE - :grace_seconds / 86400 THEN 1 ELSE 0 END AS created_past_grace
  FROM user_objects
 WHERE object_type = 'TABLE'
   AND object_name LIKE 'OLB\_%\_OWNER' ESCAPE '\'
 ORDER BY object_name
