/**
 * The later-load guard on a real Oracle server (npm run test:oracle; see vitest.config.ts here):
 * Oracle's twin of PostgreSQL's test/integration/identical-done-row.test.ts (its first test) and
 * test/survival/resumed-load-identical-done.test.ts (checkpoint 1). A line identical to the DONE
 * row of an earlier load leaves the row as it is, load_id included, and the staging batch records
 * its load in order_stage_unchanged (migrations/015_unchanged_loads.sql,
 * queries/stage_batch_unchanged.sql); StagingTx.laterLoadKeys (queries/later_load_keys.sql) reads
 * the record and the row's load_id, so a load killed before its line of the key and resumed after
 * that later load leaves its line out.
 *
 * NOT RUN where it was written (no Oracle server there): the recording tests in test/oracle/
 * (later-loads.recording.test.ts, later-load-checks.ts against the table model) check what is
 * sent and model what Oracle answers; this file is what checks the answers.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OrderLoader } from '../../src/index.js';
import { testTargets, type TestDatabase } from '../support/databases.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { assertBuilt, runCli, sleep, startCli, survivalPath } from '../survival/harness.js';

const oracle = testTargets().find((t) => t.kind === 'oracle');
const underOracleConfig = process.env.ORDER_LOADER_TEST_ORACLE_SUITE === '1';

const K1 = 'K1,1,2026-11-01,5.00,JPY';

/** K1's stage row, with the columns a write would change (updated_at to the microsecond). */
async function k1Row(db: TestDatabase): Promise<Record<string, unknown>> {
  const [r] = await db.sql(
    `SELECT stage_id, process_status, attempt_count, load_id, line_no, batch_id,
            TO_CHAR(SYS_EXTRACT_UTC(updated_at), 'YYYY-MM-DD HH24:MI:SS.FF6') AS updated_at
       FROM order_stage WHERE source_key = 'K1'`,
  );
  if (r === undefined) throw new Error('no stage row for K1');
  return r;
}

async function recorded(db: TestDatabase): Promise<Array<{ source_key: string; load_id: number }>> {
  const rows = await db.sql<{ source_key: string; load_id: unknown }>(
    'SELECT source_key, load_id FROM order_stage_unchanged ORDER BY source_key',
  );
  return rows.map((r) => ({ source_key: r.source_key, load_id: Number(r.load_id) }));
}

function laterLoadKeys(loader: OrderLoader, loadId: number, except?: number[]): Promise<string[]> {
  return loader.engine.transaction(async (tx) => {
    if (tx.laterLoadKeys === undefined) throw new Error('the Oracle engine tells later loads apart');
    return (await tx.laterLoadKeys(loadId, ['K1', 'A1', 'NEW', 'NONE'], except)).sort();
  });
}

/**
 * Until no claim row and no stage row is locked: a killed client's sessions end (their
 * transactions rolled back) once Oracle notices the closed socket; until then the rerun would find
 * its file claimed by another run, and its claims would pass over the rows a killed chunk holds.
 */
async function waitForLocksReleased(db: TestDatabase, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [claims] = await db.sql<{ n: number }>('SELECT count(*) AS n FROM order_loader_file_claim');
    const [rows] = await db.sql<{ n: number }>('SELECT count(*) AS n FROM order_stage');
    // db.sql commits after each statement: these locks end at once
    const freeClaims = await db.sql<{ claim_key: string }>('SELECT claim_key FROM order_loader_file_claim FOR UPDATE SKIP LOCKED');
    const freeRows = await db.sql<{ stage_id: number }>('SELECT stage_id FROM order_stage FOR UPDATE SKIP LOCKED');
    if (freeClaims.length === (claims?.n ?? 0) && freeRows.length === (rows?.n ?? 0)) return;
    if (Date.now() > deadline) throw new Error(`a file claim or a stage row still locked ${timeoutMs / 1000} s after the kill`);
    await sleep(250);
  }
}

describe.skipIf(oracle === undefined || !underOracleConfig)('the later-load guard on oracle (a real server: npm run test:oracle)', () => {
  it('a line identical to the DONE row of an earlier load leaves the row as it was and records the load; the guard reads the record', async () => {
    if (oracle === undefined) throw new Error('ORDER_LOADER_TEST_ORACLE is not set');
    const db = await oracle.create();
    try {
      const { loader } = await db.open();
      const first = await loader.load([writeTestFile(`${HEADER}\n${K1}\nA1,1,2026-11-01,7.00,JPY\n`)]);
      const firstLoad = first.files[0]!.loadId;
      const before = await k1Row(db);
      expect(before).toMatchObject({ process_status: 'DONE', attempt_count: 1, load_id: firstLoad });
      expect(await recorded(db)).toEqual([]);

      // batch size 1: NEW goes straight in, K1's line (ORA-00001) through the batch table, counted unchanged
      const second = await loader.load([writeTestFile(`${HEADER}\nNEW,2,2026-11-02,9.00,JPY\n${K1}\n`)], { batchSize: 1 });
      const secondLoad = second.files[0]!.loadId;
      expect(second.files[0]!.counts).toMatchObject({ inserted: 1, updated: 0, unchanged: 1 });
      expect(await k1Row(db)).toEqual(before); // not written
      expect(await recorded(db)).toEqual([{ source_key: 'K1', load_id: secondLoad }]);
      // a resumed first load would yield K1 (recorded) and NEW (its row) to the second; the second yields nothing
      expect(await laterLoadKeys(loader, firstLoad)).toEqual(['K1', 'NEW']);
      expect(await laterLoadKeys(loader, firstLoad, [secondLoad])).toEqual([]);
      expect(await laterLoadKeys(loader, secondLoad)).toEqual([]);

      // a third load's identical line moves the record on, the row still untouched
      const third = await loader.load([writeTestFile(`${HEADER}\n${K1}\n`)]);
      const thirdLoad = third.files[0]!.loadId;
      expect(await k1Row(db)).toEqual(before);
      expect(await recorded(db)).toEqual([{ source_key: 'K1', load_id: thirdLoad }]);
      expect(await laterLoadKeys(loader, secondLoad)).toEqual(['K1']);
      expect(await laterLoadKeys(loader, secondLoad, [thirdLoad])).toEqual([]);
      expect(await laterLoadKeys(loader, firstLoad, [thirdLoad])).toEqual(['NEW']);
      expect(await db.sql("SELECT count(*) AS n FROM order_bulk_error WHERE source_key = 'K1'")).toEqual([{ n: 0 }]);
    } finally {
      await db.dispose();
    }
  });

  it('a resumed load leaves out its line of a key a later load repeated as it was (killed before that line committed)', async () => {
    assertBuilt();
    if (oracle === undefined) throw new Error('ORDER_LOADER_TEST_ORACLE is not set');
    const db = await oracle.create(); // the schema dropped: the CLI migrates it on first use
    if (db.url === null) throw new Error('the Oracle target has no --db value');
    const { url, env } = db;
    try {
      const dir = survivalPath('identical-done-oracle');
      const inbox = join(dir, 'in');
      const other = join(dir, 'other');
      mkdirSync(inbox, { recursive: true });
      mkdirSync(other, { recursive: true });
      writeFileSync(join(other, 'z.csv'), `${HEADER}\n${K1}\n`);
      const first = await runCli(['load', join(other, 'z.csv'), '--db', url, '--settle', '0'], { env });
      expect(first.code, first.stderr.slice(-3000)).toBe(0);
      writeFileSync(join(inbox, 'b.csv'), `${HEADER}\nB1,1,2026-11-01,1.00,JPY\nK1,1,2026-11-01,1.00,JPY\nB2,1,2026-11-01,1.00,JPY\n`);
      writeFileSync(join(inbox, 'c.csv'), `${HEADER}\nC1,1,2026-11-01,1.00,JPY\n`);
      // killed right after b.csv's first batch (B1) committed: its K1 line not staged
      const killed = startCli(['load', inbox, '--db', url, '--batch-size', '1', '--settle', '0'], {
        env: { ...env, ORDER_LOADER_TEST_HOLD_AFTER: 'staged_checkpoint:1' },
      });
      if (!(await killed.waitFor(/holding after staged_checkpoint #1/)))
        throw new Error(`the load ended before its first checkpoint: ${(await killed.done).stderr.slice(-2000)}`);
      killed.child.kill('SIGKILL');
      expect((await killed.done).signal).toBe('SIGKILL');
      await waitForLocksReleased(db);

      // another file than z.csv: a new load, whose K1 line equals K1's DONE row
      writeFileSync(join(other, 'a.csv'), `${HEADER}\n${K1}\nA1,1,2026-11-01,7.00,JPY\n`);
      const between = await runCli(['load', join(other, 'a.csv'), '--db', url, '--settle', '0'], { env });
      expect(between.signal, between.stderr.slice(-3000)).toBeNull();
      const [aLoad] = await db.sql<{ load_id: unknown }>("SELECT load_id FROM order_stage WHERE source_key = 'A1'");
      expect(await recorded(db)).toEqual([{ source_key: 'K1', load_id: Number(aLoad?.load_id) }]);

      const rerun = await runCli(['load', inbox, '--db', url, '--settle', '0'], { env });
      expect(rerun.signal, rerun.stderr.slice(-3000)).toBeNull();
      expect(rerun.stdout + rerun.stderr).toContain('1 line(s) of resumed load');
      const k1 = await db.sql("SELECT TO_CHAR(amount, 'FM999990.00') AS amount FROM orders WHERE source_key = 'K1'");
      expect(k1, `${between.stdout}\n${rerun.stdout}`).toEqual([{ amount: '5.00' }]);
      expect(await db.sql("SELECT source_key FROM orders WHERE source_key IN ('B1', 'B2', 'C1') ORDER BY source_key")).toEqual([
        { source_key: 'B1' },
        { source_key: 'B2' },
        { source_key: 'C1' },
      ]);
    } finally {
      await db.dispose();
    }
  });
});
