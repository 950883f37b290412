import type { TestDatabase } from './databases.js';

/**
 * Real row-level failures raised by the database inside the MERGE: a trigger on orders raises
 * the SQLSTATE listed in test_fail_keys for that source_key (40P01 deadlock_detected by
 * default, a transient failure). PostgreSQL only. Returns functions to make a key fail and to
 * let it succeed again.
 */
export async function failingKeys(
  db: TestDatabase,
): Promise<{ fail(key: string, sqlstate?: string): Promise<void>; heal(key: string): Promise<void> }> {
  await db.sql('CREATE TABLE test_fail_keys (source_key text PRIMARY KEY, sqlstate text NOT NULL)');
  await db.sql(`CREATE FUNCTION test_fail() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE state text;
    BEGIN
      SELECT f.sqlstate INTO state FROM test_fail_keys f WHERE f.source_key = NEW.source_key;
      IF state IS NOT NULL THEN
        RAISE EXCEPTION 'injected transient failure' USING ERRCODE = state;
      END IF;
      RETURN NEW;
    END $$`);
  await db.sql('CREATE TRIGGER test_fail BEFORE INSERT OR UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION test_fail()');
  return {
    async fail(key, sqlstate = '40P01') {
      await db.sql('INSERT INTO test_fail_keys VALUES ($1, $2)', [key, sqlstate]);
    },
    async heal(key) {
      await db.sql('DELETE FROM test_fail_keys WHERE source_key = $1', [key]);
    },
  };
}
