-- The longest VARCHAR2 this database handles in SQL, read without any privilege (v$parameter's
-- max_string_size needs SELECT_CATALOG_ROLE): a character function's VARCHAR2 result is cut,
-- without an error, to 4000 bytes under MAX_STRING_SIZE = STANDARD and to 32767 bytes under
-- EXTENDED (Oracle SQL Language Reference, "Character Functions Returning Character Values").
-- 'x' is one byte in AL32UTF8. Answers 4000 or 32767.
SELECT LENGTHB(RPAD('x', 32767, 'x')) AS max_bytes FROM dual
