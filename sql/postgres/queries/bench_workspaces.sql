SELECT nspname AS schema
  FROM pg_namespace
 WHERE nspname LIKE 'order\_loader\_bench\_%'
 ORDER BY nspname;
