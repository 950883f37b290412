/**
 * A database out of space stops the command at once with one clear reason, ends its runs and
 * lets the folder go. Injected (PostgreSQL's 53100 disk_full, at each place it can surface) on
 * every target; on PGlite also for real: its folder on a small tmpfs (root only, skipped
 * elsewhere), where PostgreSQL met the full disk in a WAL write and PGlite spun for ever.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunAbortedError } from '../../src/errors.js';
import type { EngineTx } from '../../src/engine/types.js';
import { faultyEngine } from '../support/fault-engine.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { mountSmallDevice, smallDeviceAvailable, type FullDevice } from '../support/full-device.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { assertBuilt, generateOrderFile, humanLines, runCli, startCli } from './harness.js';

const OUT_OF_SPACE = /the database is out of space: free some or extend it/;
const diskFull = (): Error => Object.assign(new Error('could not extend file "base/5/16384": No space left on device'), { code: '53100' });
const fastRetry = { attempts: 6, baseDelayMs: 5, maxDelayMs: 20 };

function lines(n: number): string {
  return writeTestFile(
    `${HEADER}\n${Array.from({ length: n }, (_, i) => `S-${String(i).padStart(4, '0')},${i + 1},2026-05-01,${i}.50,EUR`).join('\n')}\n`,
  );
}

/** Fails `step` once, when `armed()` says so; counts the failures. */
function failOnce(step: keyof EngineTx, armed: (steps: Set<string>) => boolean = () => true) {
  const seen = new Set<string>();
  const state = { failures: 0 };
  const wrap = (engine: Parameters<typeof faultyEngine>[0]) =>
    faultyEngine(engine, (called) => {
      seen.add(called);
      if (called !== step || !armed(seen) || state.failures > 0) return undefined;
      state.failures++;
      return diskFull();
    });
  return { wrap, state };
}

forEachTarget('out of space on $kind: the command stops at once, its runs ended', () => {
  const cases: Array<{ where: string; step: keyof EngineTx; command: 'load' | 'process'; armed?: (steps: Set<string>) => boolean }> = [
    { where: 'staging (and settling: the same batch on PGlite)', step: 'stageBatch', command: 'load' },
    { where: 'processing', step: 'finalizeChunk', command: 'process' },
    { where: 'processing in the database', step: 'processInDatabase', command: 'process' },
    {
      where: "the run's end",
      step: 'addRunEvent',
      command: 'process',
      armed: (steps) => steps.has('finalizeChunk') || steps.has('processInDatabase'),
    },
  ];
  for (const { where, step, command, armed } of cases) {
    targetTest(`53100 in ${where}: not retried, exit reason said, the run FAILED, nothing RUNNING`, async ({ db }) => {
      const file = lines(40);
      if (command === 'process') {
        const { loader: stager } = await db.open();
        await stager.stage([file]);
      }
      const { wrap, state } = failOnce(step, armed);
      const { loader, logs } = await db.openWith(wrap);
      const started = Date.now();
      const run =
        command === 'load' ? loader.load([file], { retry: fastRetry, batchSize: 10 }) : loader.process({ retry: fastRetry, chunkSize: 10 });
      const error = await run.catch((e: unknown) => e);
      expect(state.failures, `${step} reached`).toBe(1);
      expect(error).toBeInstanceOf(RunAbortedError);
      expect((error as Error).message).toMatch(OUT_OF_SPACE);
      expect(state.failures).toBe(1);
      expect(logs.records.filter((r) => r.msg.includes('retrying'))).toEqual([]);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(await db.sql("SELECT count(*) AS n FROM load_run WHERE status = 'RUNNING'")).toEqual([{ n: 0 }]);
      const [last] = await db.sql<{ status: string; message: string }>('SELECT status, message FROM load_run ORDER BY run_id DESC LIMIT 1');
      expect(last?.status).toBe('FAILED');
      expect(last?.message).toMatch(OUT_OF_SPACE);
    });
  }
});

describe.skipIf(!smallDeviceAvailable())('out of space for real: a PGlite folder on an 80 MB file system', () => {
  let device: FullDevice | null = null;
  afterEach(() => {
    device?.unmount();
    device = null;
  });

  it('load exits 1 within seconds saying so, its run FAILED, the folder lock released, and `runs` still reads the folder', async () => {
    assertBuilt();
    device = mountSmallDevice('80m');
    if (device === null) throw new Error('the small device could not be mounted');
    const db = `pglite:${join(device.dir, 'db')}`;
    const file = await generateOrderFile(1_000_000, 38, 'OOS');
    // without the guard PGlite spun in XLogFlush for ever, deaf to SIGTERM: killed after 2 minutes
    const started = startCli(['load', file.path, '--db', db, '--settle', '0', '--lock-timeout', '0']);
    const killer = setTimeout(() => started.child.kill('SIGKILL'), 120_000);
    const load = await started.done.finally(() => clearTimeout(killer));
    expect(load.signal, 'still running after 2 minutes').toBeNull();
    expect(load.code, load.stderr.slice(-2000)).toBe(1);
    expect(humanLines(load.stderr).join('\n')).toMatch(OUT_OF_SPACE);
    expect(existsSync(join(device.dir, 'db', 'order-loader.lock'))).toBe(false);
    const runs = await runCli(['runs', '--db', db, '--json', '--lock-timeout', '0']);
    expect(runs.code, runs.stderr.slice(-2000)).toBe(0);
    const listed = JSON.parse(runs.stdout) as Array<{ status: string; message: string | null }>;
    expect(listed.map((r) => r.status)).toEqual(['FAILED']);
    expect(listed[0]?.message).toMatch(OUT_OF_SPACE);
  }, 300_000);
});
