/**
 * File claims (src/engine/contract.ts FileClaims, src/pipeline/file-claim.ts): a file identity is
 * one session's while a run decides and stages that file. On a server database (PostgreSQL: an
 * advisory lock; Oracle: a row lock) a second session waits for it, gets it once it is released
 * or once the holder's session ended (a killed run); on PGlite (one process per folder, one
 * connection) every claim is granted at once. The run
 * waits for a claim another run holds as long as its claimWaitMs (--lock-timeout) says, naming
 * that run, then stages; past it, or interrupted, it stops with nothing staged.
 */
import { openClaimBatch } from '../support/open-claim-batch.js';
import { expect } from 'vitest';
import type { Engine } from '../../src/engine/types.js';
import { DatabaseBusyError } from '../../src/engine/folder-lock.js';
import { RunAbortedError } from '../../src/errors.js';
import { claimKey } from '../../src/pipeline/file-claim.js';
import { FILE_CLAIM_CLASS } from '../../src/engine/postgres/file-claims.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { orderFile } from '../support/files.js';

const KEY = claimKey({ sha256: 'a'.repeat(64), encoding: 'utf-8', delimiter: ',', profile: 'builtin' });
const OTHER = claimKey({ sha256: 'a'.repeat(64), encoding: 'shift_jis', delimiter: ',', profile: 'builtin' });

/** The engine with its first `busy` claims answered "held by another session". */
function busyFor(busy: number, onTry?: (tries: number) => void): { wrap: (engine: Engine) => Engine; tries: () => number } {
  let tries = 0;
  return {
    tries: () => tries,
    wrap: (engine) => ({
      ...engine,
      claimFile: (key: string) => {
        tries += 1;
        onTry?.(tries);
        return tries <= busy ? Promise.resolve(null) : engine.claimFile(key);
      },
    }),
  };
}

forEachTarget('file claims on $kind', (target) => {
  targetTest('a claimed identity is one session’s until released; another identity is not held up', async ({ db }) => {
    const first = (await db.open()).loader.engine;
    const second = (await db.open()).loader.engine;
    const claim = await first.claimFile(KEY);
    expect(claim).not.toBeNull();
    if (target.kind === 'pglite') {
      // one process, one connection: nothing to wait for
      expect(await second.claimFile(KEY)).not.toBeNull();
      return;
    }
    const started = performance.now();
    expect(await second.claimFile(KEY)).toBeNull();
    // waited about a second for it
    expect(performance.now() - started).toBeGreaterThan(800);
    const other = await second.claimFile(OTHER);
    expect(other).not.toBeNull();
    await other?.release();
    await claim?.release();
    const taken = await second.claimFile(KEY);
    expect(taken).not.toBeNull();
    await taken?.release();
  });

  // a killed holder on Oracle: test/oracle/file-claims.recording.test.ts (the session's end) and Oracle's own word
  if (target.kind === 'postgres')
    targetTest('a claim ends with the session that holds it (the holder killed)', async ({ db }) => {
      const first = (await db.open()).loader.engine;
      const second = (await db.open()).loader.engine;
      expect(await first.claimFile(KEY)).not.toBeNull();
      expect(await second.claimFile(KEY)).toBeNull();
      // what kill -9 of the holder's process leaves the server: its session ends
      const ended = await db.sql<{ ended: boolean }>(
        `SELECT pg_terminate_backend(l.pid) AS ended FROM pg_locks l JOIN pg_database d ON d.oid = l.database
            WHERE d.datname = current_database() AND l.locktype = 'advisory' AND l.classid = $1 AND l.granted`,
        [FILE_CLAIM_CLASS],
      );
      expect(ended).toEqual([{ ended: true }]);
      const taken = await second.claimFile(KEY);
      expect(taken).not.toBeNull();
      await taken?.release();
    });

  targetTest('a run waits for a file another run claims, says for whom, then stages it', async ({ db }) => {
    const busy = busyFor(2);
    const { loader, logs } = await db.openWith(busy.wrap);
    const file = orderFile([['FC-1', '1', '2026-01-01', '10.00', 'JPY']]);
    const report = await loader.load([file], { claimWaitMs: 60_000 });
    expect(busy.tries()).toBe(3);
    expect(report.exitCode).toBe(0);
    expect(logs.records.map((r) => r.msg)).toContain(
      `${file}: waiting for another run that stages the same file (up to 1m, --lock-timeout)`,
    );
    expect(await db.sql('SELECT source_key, process_status FROM order_stage')).toEqual([{ source_key: 'FC-1', process_status: 'DONE' }]);
  });

  targetTest('past claimWaitMs the run stops with nothing staged (exit 1), and so when interrupted', async ({ db }) => {
    const file = orderFile([['FC-2', '1', '2026-01-01', '10.00', 'JPY']]);
    const { loader } = await db.openWith(busyFor(Infinity).wrap);
    await expect(loader.load([file], { claimWaitMs: 0 })).rejects.toThrow(DatabaseBusyError);
    // interrupted while it waits for the claim: once its first try found the file claimed (a timer
    // could fire before the run reaches the wait on a loaded machine, and test another path)
    const stop = new AbortController();
    const waiting = await db.openWith(busyFor(Infinity, () => stop.abort()).wrap);
    await expect(waiting.loader.load([file], { claimWaitMs: 60_000, signal: stop.signal })).rejects.toThrow(RunAbortedError);
    expect(await db.sql('SELECT source_key FROM order_stage')).toEqual([]);
  });

  // the same on Oracle with its barrier row: test/oracle/file-claims.recording.test.ts
  if (target.kind === 'postgres')
    targetTest('a staging transaction sees its claim end, and a new holder waits for it before it reads the history', async ({ db }) => {
      const first = (await db.open()).loader.engine;
      const second = (await db.open()).loader.engine;
      const claim = await first.claimFile(KEY);
      const fence = claim?.fence ?? null;
      expect(fence?.token).toEqual(expect.any(Number));
      if (fence === null) return;
      const [holder] = await db.sql<{ pid: number }>(
        `SELECT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database
          WHERE d.datname = current_database() AND l.locktype = 'advisory' AND l.classid = $1 AND l.granted`,
        [FILE_CLAIM_CLASS],
      );
      expect(await first.transaction((tx) => tx.holdsFileClaim(fence))).toBe(true); // a batch that saw its claim held and has not committed yet
      const batch = await openClaimBatch(first, fence);
      expect(batch.held).toBe(true);
      const ended = await db.sql<{ ended: boolean }>('SELECT pg_terminate_backend($1) AS ended', [holder?.pid]);
      expect(ended).toEqual([{ ended: true }]);
      // gone, with its lock (pg_terminate_backend only signals it)
      await expect
        .poll(async () => db.sql('SELECT 1 FROM pg_locks WHERE pid = $1', [holder?.pid]), { timeout: 5000, interval: 20 })
        .toEqual([]);
      // the claim is free, but the batch still open keeps a new holder out (it gives the claim back)
      expect(await second.claimFile(KEY)).toBeNull();
      await batch.commit();
      const taken = await second.claimFile(KEY);
      expect(taken?.fence?.token).not.toBe(fence.token);
      // the former holder's next batch: the claim is another session's now
      expect(await first.transaction((tx) => tx.holdsFileClaim(fence))).toBe(false);
      await taken?.release();
      // and no one's: still not this one's
      expect(await first.transaction((tx) => tx.holdsFileClaim(fence))).toBe(false);
    });

  if (target.kind === 'pglite')
    targetTest('PGlite: a claim has nothing to check (no session of its own to lose)', async ({ db }) => {
      const claim = await (await db.open()).loader.engine.claimFile(KEY);
      expect(claim?.fence).toBeNull();
    });
});
