-- The database character set, checked when the engine opens (src/engine/oracle/charset.ts).
SELECT value
  FROM nls_database_parameters
 WHERE parameter = 'NLS_CHARACTERSET'
