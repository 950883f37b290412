-- attributes: the other columns of a file read through a load profile with `extra: keep` (or a
-- list of column names), kept with the row (PostgreSQL: migrations/011_attributes.sql, jsonb):
-- one JSON object of column name -> text, in the canonical form the loader writes
-- (src/input/profile/attributes.ts: keys sorted, no whitespace), or NULL (the built-in format).
--
-- A CLOB checked IS JSON, which 19c has (no JSON type before 21c). Not VARCHAR2(4000 BYTE): the
-- other 35 columns of a partner's file pass 4000 bytes easily, and VARCHAR2(32767) exists only
-- under MAX_STRING_SIZE = EXTENDED, which a database sets once and for good (a DBA's choice, not
-- a migration's). A CLOB takes any length under either setting; a short one (under about 4000
-- bytes, the usual case) is stored in the row (ENABLE STORAGE IN ROW, the default). The loader
-- binds the text as VARCHAR2 while it fits this database's VARCHAR2 limit (4000, or 32767
-- where EXTENDED was found: string-size.ts) and as a CLOB past it (binds.ts, longText).
--
-- A CLOB cannot be compared with = or DECODE: the staging rule and the MERGE compare it with
-- DBMS_LOB.COMPARE, after a NULL test that settles the built-in format's rows (both NULL)
-- without a LOB call. The text is canonical, so equal attributes are equal text.
--
-- Format and re-run as in 001_schema.sql: one statement per block. ADD of a column that exists
-- (ORA-01430) and of a constraint whose name is taken (ORA-02264) are accepted as applied by a
-- re-run (src/engine/oracle/migrations.ts). Nullable, no default: the ADD writes no row.
ALTER TABLE order_stage ADD (attributes CLOB)
/
ALTER TABLE order_stage ADD CONSTRAINT ck_order_stage_attributes CHECK (attributes IS JSON)
/
ALTER TABLE orders ADD (attributes CLOB)
/
ALTER TABLE orders ADD CONSTRAINT ck_orders_attributes CHECK (attributes IS JSON)
/
-- The staging batch's session table (001_schema.sql) carries the attributes from the array
-- insert to order_stage; checked there too, so that text that is not JSON is refused in the
-- batch insert, for its row alone (a batch error), as every value order_stage cannot hold.
ALTER TABLE order_stage_batch ADD (attributes CLOB)
/
ALTER TABLE order_stage_batch ADD CONSTRAINT ck_stage_batch_attributes CHECK (attributes IS JSON)
