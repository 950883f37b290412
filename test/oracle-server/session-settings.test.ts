/**
 * The loader's sessions compare source_key byte for byte even where the database makes every
 * session linguistic and case-insensitive (npm run test:oracle; see vitest.config.ts here). A
 * logon trigger of the test schema (AFTER LOGON ON SCHEMA, which CREATE TRIGGER allows) sets
 * NLS_COMP = LINGUISTIC and NLS_SORT = BINARY_CI in every session of the loader's user; the
 * test first proves that it does ('abc' = 'ABC' is true in a new session), then loads `abc` and
 * `ABC` with the built CLI and expects two orders. Without queries/session_settings.sql the
 * MERGE's ON clause matches ABC with abc and one order overwrites the other. The trigger is
 * dropped at the end, even when the test fails. Skipped unless ORDER_LOADER_TEST_ORACLE is set
 * and this file runs under that config.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDbUrl } from '../../src/engine/db-url.js';
import { testTargets } from '../support/databases.js';
import { withOracleConnection, type OracleDbTarget } from '../support/oracle-target.js';
import { assertBuilt, runCli } from '../survival/harness.js';

const oracle = testTargets().find((t) => t.kind === 'oracle');
const underOracleConfig = process.env.ORDER_LOADER_TEST_ORACLE_SUITE === '1';
const NO_COMMIT = { autoCommit: false } as const;
const TRIGGER = 'order_loader_test_ci_logon';

const CREATE_TRIGGER = `CREATE OR REPLACE TRIGGER ${TRIGGER} AFTER LOGON ON SCHEMA
BEGIN
  EXECUTE IMMEDIATE 'ALTER SESSION SET NLS_COMP = ''LINGUISTIC'' NLS_SORT = ''BINARY_CI''';
END;`;

describe.skipIf(oracle === undefined || !underOracleConfig)('session settings on oracle (a real server: npm run test:oracle)', () => {
  it('abc and ABC stay two orders under a logon trigger that makes sessions LINGUISTIC / BINARY_CI', async () => {
    assertBuilt();
    if (oracle === undefined) throw new Error('ORDER_LOADER_TEST_ORACLE is not set');
    const db = await oracle.create(); // the loader's tables dropped: the CLI migrates on first use
    if (db.url === null) throw new Error('the Oracle target has no --db value');
    const target = parseDbUrl(db.url, { ORDER_LOADER_DB_PASSWORD: db.env.ORDER_LOADER_DB_PASSWORD ?? '' }) as OracleDbTarget;
    const folder = mkdtempSync(join(tmpdir(), 'order-loader-nls-'));
    const file = join(folder, 'orders.csv');
    writeFileSync(file, 'source_key,customer_id,order_date,amount,currency\nabc,1,2024-04-01,10.00,JPY\nABC,2,2024-04-02,20.00,JPY\n');
    await withOracleConnection(target, (c) => c.execute(CREATE_TRIGGER, {}, NO_COMMIT));
    try {
      // the trigger works: a new session compares case-insensitively
      const seen = await withOracleConnection(target, async (c) => {
        const r = await c.execute(
          "SELECT (SELECT value FROM nls_session_parameters WHERE parameter = 'NLS_COMP') AS nls_comp, (SELECT COUNT(*) FROM dual WHERE 'abc' = 'ABC') AS same FROM dual",
          {},
          NO_COMMIT,
        );
        return (r.rows ?? [])[0] as unknown[];
      });
      expect(seen).toEqual(['LINGUISTIC', 1]);

      const load = await runCli(['load', file, '--db', db.url], { env: db.env });
      expect(load.code, load.stderr.slice(-3000)).toBe(0);

      const rows = await withOracleConnection(target, async (c) => {
        // this session is LINGUISTIC too: read every row and compare in JavaScript
        const orders = await c.execute('SELECT source_key, customer_id FROM orders', {}, NO_COMMIT);
        const stage = await c.execute('SELECT source_key, process_status FROM order_stage', {}, NO_COMMIT);
        return {
          orders: (orders.rows ?? []).map((r) => (r as unknown[]).join(':')).sort(),
          stage: (stage.rows ?? []).map((r) => (r as unknown[]).join(':')).sort(),
        };
      });
      expect(rows).toEqual({ orders: ['ABC:2', 'abc:1'], stage: ['ABC:DONE', 'abc:DONE'] });
    } finally {
      await withOracleConnection(target, (c) => c.execute(`DROP TRIGGER ${TRIGGER}`, {}, NO_COMMIT));
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
