/**
 * The chunk processed in the database on Oracle (chunk-in-database.ts, process_rows.sql), against
 * the RECORDING connection with the table model answering: the same DONE / ERROR / RETRY_WAIT
 * outcome, attempt_count, transient_failures and error log as the chunk claimed to the client,
 * in fewer round trips. What the server does with the PL/SQL block is not run here
 * (docs/oracle.md).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { processRowsSql } from '../../src/engine/oracle/chunk-in-database.js';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import { processBacklog } from '../../src/pipeline/process.js';
import { DEFAULT_RETRY } from '../../src/pipeline/retry.js';
import { memoryLogger } from '../support/memory-logger.js';
import { constants, RecordingDatabase } from './recording-connection.js';
import { TableModel } from './table-model.js';

/** Staged rows of every kind a chunk meets. */
function scenario(): TableModel {
  const model = new TableModel();
  for (let i = 1; i <= 30; i++) model.addStage({ source_key: `N${i}`, amount: 100 + i });
  // orders that exist: one with other values (updated), one identical (nothing to change)
  model.orders.push({ source_key: 'N1', customer_id: '42', order_date: '2024-04-01', amount: 5, currency: 'JPY', updated_at: model.now });
  model.orders.push({ source_key: 'N2', customer_id: '42', order_date: '2024-04-01', amount: 102, currency: 'JPY', updated_at: model.now });
  model.addStage({ source_key: 'OVERFLOW', amount: 1e11 }); // plain for the stage, too big for orders.amount: ORA-01438
  model.addStage({ source_key: 'LOWER', currency: 'jpy' }); // not plain: validateOrder refuses it
  model.addStage({ source_key: 'NOAMOUNT', amount: null }); // not plain: validateOrder refuses it
  model.addStage({
    source_key: 'DUE',
    process_status: 'RETRY_WAIT',
    next_attempt_at: model.now - 1,
    attempt_count: 2,
    transient_failures: 1,
  });
  return model;
}

async function run(inDatabase: boolean) {
  const model = scenario();
  const db = new RecordingDatabase(model.script());
  const engine = createOracleEngineWith(db, constants, { processInDatabase: inDatabase });
  const result = await processBacklog(engine, {
    runId: 9,
    chunkSize: 12,
    workers: 1,
    maxAttempts: 5,
    rowRetryBaseMs: 30_000,
    rowRetryMaxMs: 600_000,
    lockWaitMs: 10_000,
    retry: DEFAULT_RETRY,
    logger: memoryLogger().logger,
  });
  await engine.close();
  const state = {
    stage: model.stage.map((r) => [r.stage_id, r.process_status, r.attempt_count, r.transient_failures, r.error_code, r.batch_id]),
    orders: model.orders.map((o) => [o.source_key, o.amount]).sort(),
    errorLog: model.errorLog.map((e) => [e.stage_id, e.phase, e.error_code, e.attempt_no, e.batch_id]),
  };
  // round trips of each chunk: the calls that go to the server (the claim's rows come with its execute)
  const chunks = result.counts.chunks;
  const calls = db.calls.filter((c) => c.kind === 'execute' || c.kind === 'executeMany' || c.kind === 'commit').length;
  return { result, state, chunks, calls, db };
}

describe('Oracle chunk processed in the database (recording connection, table model)', () => {
  it('ends every row as the chunk claimed to the client does: statuses, attempt_count, transient_failures, orders, error log', async () => {
    const client = await run(false);
    const inDb = await run(true);
    expect(inDb.state).toEqual(client.state);
    expect(inDb.result.counts).toEqual(client.result.counts);
    expect(inDb.result.counts).toMatchObject({ claimed: 34, done: 31, error: 3, validateErrors: 2, mergeErrors: 1 });
    // the overflow: ERROR in phase MERGE, attempt counted once
    const overflow = client.state.errorLog.find((e) => e[2] === 'ORA-01438');
    expect(overflow).toEqual([31, 'MERGE', 'ORA-01438', 1, '9-3']);
    // the plainly valid rows went through the block, the others through the client's MERGE
    expect(inDb.db.executeManyCalls().some((c) => c.sql === processRowsSql())).toBe(true);
    expect(client.db.executeManyCalls().some((c) => c.sql === processRowsSql())).toBe(false);
  });

  it('a clean chunk (200 rows here; the same for 2,000) is 3 round trips (claim, block, COMMIT) instead of 5 (claim, lock step, MERGE, DONE, COMMIT)', async () => {
    // undefined: the engine's default, ORDER_LOADER_PROCESS_IN_DATABASE read when it is made
    const clean = async (inDatabase: boolean | undefined) => {
      const model = new TableModel();
      for (let i = 1; i <= 200; i++) model.addStage({ source_key: `K${i}` });
      const db = new RecordingDatabase(model.script());
      const engine = createOracleEngineWith(db, constants, inDatabase === undefined ? undefined : { processInDatabase: inDatabase });
      const result = await processBacklog(engine, {
        runId: 1,
        chunkSize: 200,
        workers: 1,
        maxAttempts: 5,
        rowRetryBaseMs: 1,
        rowRetryMaxMs: 1,
        lockWaitMs: 10_000,
        retry: DEFAULT_RETRY,
        logger: memoryLogger().logger,
      });
      await engine.close();
      expect(result.counts).toMatchObject({ chunks: 1, done: 200 });
      // the chunk's own calls: up to its COMMIT (the empty claims after it are the end of the pass)
      const upToCommit = db.calls.slice(0, db.calls.findIndex((c) => c.kind === 'commit') + 1);
      return upToCommit.filter((c) => c.kind === 'execute' || c.kind === 'executeMany' || c.kind === 'commit').length;
    };
    expect(await clean(false)).toBe(5);
    expect(await clean(true)).toBe(3);
    // the default is the block; ORDER_LOADER_PROCESS_IN_DATABASE=off keeps the client path
    vi.stubEnv('ORDER_LOADER_PROCESS_IN_DATABASE', '');
    expect(await clean(undefined)).toBe(3);
    vi.stubEnv('ORDER_LOADER_PROCESS_IN_DATABASE', 'off');
    expect(await clean(undefined)).toBe(5);
    vi.unstubAllEnvs();
  });

  it('with failures: 5 round trips instead of 7 (the failed rows written by the client, as before)', async () => {
    const inDb = await run(true);
    const client = await run(false);
    // three chunks of 12, 12 and 11 rows, and the empty claims that end the pass
    expect(inDb.chunks).toBe(client.chunks);
    expect(client.calls - inDb.calls).toBe(2 * inDb.chunks);
  });

  const CHECK = process.env.ORDER_LOADER_PLSQL_CHECK ?? '/work/shared/tools/plsql/check.sh';
  const BUILT = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'order-loader-plsql', '.built');
  const missing = !existsSync(CHECK) || !existsSync(BUILT);
  it.skipIf(missing)(
    `the block as sent (merge_orders.sql and finalize_done.sql in it) passes the PL/SQL grammar check${missing ? ' (skipped: the checker is not built)' : ''}`,
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'ora-process-rows-'));
      try {
        const file = join(dir, 'process_rows.sql');
        writeFileSync(file, processRowsSql());
        const result = spawnSync(CHECK, [file], { encoding: 'utf8' });
        expect(`${result.stdout}${result.stderr}`).not.toContain('FAIL');
        expect(result.status).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('the block holds the two statements whole, and re-raises a cancelled call instead of reporting it for a row', () => {
    const sql = processRowsSql();
    expect(sql).toContain(`${oracleQuery('merge_orders').trim()};`);
    expect(sql).toContain(`${oracleQuery('finalize_done').trim()};`);
    expect(sql).not.toMatch(/_here;/);
    expect(sql).toMatch(
      /PRAGMA EXCEPTION_INIT\(cancelled, -1013\)[\s\S]*WHEN cancelled THEN\s+RAISE;\s+WHEN OTHERS THEN\s+ROLLBACK TO SAVEPOINT process_row;/,
    );
  });
});
