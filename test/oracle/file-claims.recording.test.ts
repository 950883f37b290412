/**
 * File claims on Oracle (src/engine/oracle/file-claims.ts) against a RECORDING database
 * (recording-connection.ts) that models order_loader_file_claim (migration 012) as Oracle keeps
 * it for the statements sent: committed rows, a session's uncommitted insert, and row locks held
 * by a session until its ROLLBACK, COMMIT or end (a ROLLBACK TO SAVEPOINT ends those taken since
 * the savepoint); FOR UPDATE WAIT on a row another session locks fails with ORA-30006, FOR UPDATE
 * NOWAIT with ORA-00054; a killed session's locks end and its next call fails with ORA-00028
 * (lib/thin: the server's error on the next round trip). It runs no SQL: whether Oracle waits and ends locks so is Oracle's part
 * (test/oracle-server runs the engine on a real one).
 */
import { openClaimBatch } from '../support/open-claim-batch.js';
import { describe, expect, it } from 'vitest';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import { barrierKey } from '../../src/engine/oracle/file-claims.js';
import { oracleQuery } from '../../src/engine/oracle/sql-text.js';
import { claimKey } from '../../src/pipeline/file-claim.js';
import { constants, driverError, RecordingDatabase } from './recording-connection.js';
import type { OraBinds } from '../../src/engine/oracle/oracledb-types.js';

const KEY = claimKey({ sha256: 'b'.repeat(64), encoding: 'utf-8', delimiter: ',', profile: 'builtin' });
const OTHER = claimKey({ sha256: 'c'.repeat(64), encoding: 'utf-8', delimiter: ',', profile: 'builtin' });

/** The claim table as the sessions see it. */
class ClaimTable {
  readonly committed = new Set<string>();
  /** Inserted, not committed yet, by session. */
  readonly pending = new Map<number, Set<string>>();
  /** Row locks: key → session. */
  readonly locks = new Map<string, number>();
  /** A session whose ROLLBACK fails (its socket died). */
  failRollback: number | null = null;
  /** Sessions killed (ALTER SYSTEM KILL SESSION): their next call fails. */
  readonly killed = new Set<number>();
  /** Row locks taken since a session's savepoint. */
  readonly sinceSavepoint = new Map<number, Set<string>>();

  private end(conn: number): void {
    this.pending.delete(conn);
    this.sinceSavepoint.delete(conn);
    for (const [key, holder] of this.locks) if (holder === conn) this.locks.delete(key);
  }

  kill(conn: number): void {
    this.end(conn);
    this.killed.add(conn);
  }

  private lock(k: string, conn: number, busy: () => Error): void {
    const holder = this.locks.get(k);
    if (holder !== undefined && holder !== conn) throw busy();
    if (holder === undefined) this.sinceSavepoint.get(conn)?.add(k);
    this.locks.set(k, conn);
  }

  database(): RecordingDatabase {
    const key = (binds: OraBinds): string => String((binds.claim_key as { val: unknown }).val);
    return new RecordingDatabase({
      execute: (sql, binds, _options, conn) => {
        if (this.killed.has(conn)) throw driverError('ORA-00028', 'your session has been killed');
        if (sql === oracleQuery('file_claim_savepoint')) {
          this.sinceSavepoint.set(conn, new Set());
          return {};
        }
        if (sql === oracleQuery('file_claim_savepoint_back')) {
          for (const k of this.sinceSavepoint.get(conn) ?? []) this.locks.delete(k);
          this.sinceSavepoint.delete(conn);
          return {};
        }
        if (sql === oracleQuery('file_claim_barrier')) {
          const k = key(binds);
          if (!this.committed.has(k)) return { rows: [] };
          this.lock(k, conn, () => driverError('ORA-00054', 'resource busy and acquire with NOWAIT specified or timeout expired'));
          return { rows: [{ CLAIM_KEY: k }] };
        }
        if (sql === oracleQuery('file_claim_insert')) {
          const k = key(binds);
          if (this.committed.has(k)) return { rowsAffected: 0 };
          // another session's uncommitted row: Oracle waits for its COMMIT, then refuses the duplicate
          if ([...this.pending].some(([c, keys]) => c !== conn && keys.has(k)))
            throw driverError('ORA-00001', 'unique constraint violated');
          this.pending.set(conn, (this.pending.get(conn) ?? new Set()).add(k));
          return { rowsAffected: 1 };
        }
        if (sql === oracleQuery('file_claim_lock')) {
          const k = key(binds);
          if (!this.committed.has(k) && !(this.pending.get(conn)?.has(k) ?? false)) return { rows: [] };
          this.lock(k, conn, () => driverError('ORA-30006', 'resource busy; acquire with WAIT timeout expired'));
          return { rows: [{ CLAIM_KEY: k }] };
        }
        return { rows: [] };
      },
      commit: (conn) => {
        for (const k of this.pending.get(conn) ?? []) this.committed.add(k);
        this.end(conn);
      },
      rollback: (conn) => {
        if (conn === this.failRollback) throw driverError('DPI-1080', 'connection was closed by ORA-03113');
        this.end(conn);
      },
      close: (conn) => this.end(conn),
    });
  }
}

describe('Oracle file claims (recording database)', () => {
  it('a claimed identity is one session’s until its ROLLBACK; another identity is not held up', async () => {
    const table = new ClaimTable();
    const db = table.database();
    const first = createOracleEngineWith(db, constants);
    const second = createOracleEngineWith(db, constants);
    const claim = await first.claimFile(KEY);
    expect(claim).not.toBeNull();
    expect(table.committed.has(KEY)).toBe(true);
    expect(await second.claimFile(KEY)).toBeNull();
    const other = await second.claimFile(OTHER);
    expect(other).not.toBeNull();
    await other?.release();
    await claim?.release();
    expect(table.locks.size).toBe(0);
    const taken = await second.claimFile(KEY);
    expect(taken).not.toBeNull();
    await taken?.release();
    // each claim: its row and its barrier row made if absent and committed, its row locked, the
    // barrier row locked and let go under a savepoint; given up by a ROLLBACK
    const first3 = db.calls.filter((c) => c.conn === 1).map((c) => (c.kind === 'execute' ? c.sql : c.kind));
    expect(first3).toEqual([
      oracleQuery('file_claim_insert'),
      'commit',
      oracleQuery('file_claim_insert'),
      'commit',
      oracleQuery('file_claim_lock'),
      oracleQuery('file_claim_savepoint'),
      oracleQuery('file_claim_lock'),
      oracleQuery('file_claim_savepoint_back'),
      'rollback',
    ]);
    expect(table.committed).toEqual(new Set([KEY, barrierKey(KEY), OTHER, barrierKey(OTHER)]));
    expect(oracleQuery('file_claim_lock')).toMatch(/FOR UPDATE WAIT 1$/);
    await first.close();
    await second.close();
  });

  it('a claim session is one of its own: its settings first, no connection of the driver taken, kept for the next claim, closed with the engine', async () => {
    const table = new ClaimTable();
    const db = table.database();
    const engine = createOracleEngineWith(db, constants);
    for (const key of [KEY, OTHER, KEY]) await (await engine.claimFile(key))?.release();
    // one session for the three claims, its session settings sent before anything else
    expect(db.sessions()).toBe(1);
    expect(db.log[0]).toMatchObject({ kind: 'execute', conn: 1, sql: oracleQuery('session_settings') });
    await engine.close();
    expect(db.ended.has(1)).toBe(true);
  });

  it('a claim held when its session ends (the engine closed, the process killed) is free for another session', async () => {
    const table = new ClaimTable();
    const db = table.database();
    const first = createOracleEngineWith(db, constants);
    const second = createOracleEngineWith(db, constants);
    expect(await first.claimFile(KEY)).not.toBeNull();
    await first.close();
    const taken = await second.claimFile(KEY);
    expect(taken).not.toBeNull();
    await taken?.release();
    await second.close();
  });

  it('two sessions making the same new row at once: the second takes ORA-00001 as the row there', async () => {
    const table = new ClaimTable();
    const db = table.database();
    const engine = createOracleEngineWith(db, constants);
    // another session inserted the row and commits it while this one waits on the unique key
    table.pending.set(99, new Set([KEY]));
    const script = db.script.execute;
    db.script.execute = (sql, binds, options, conn) => {
      if (sql === oracleQuery('file_claim_insert') && (binds.claim_key as { val: unknown }).val === KEY) {
        table.committed.add(KEY);
        table.pending.delete(99);
        throw driverError('ORA-00001', 'unique constraint violated');
      }
      return script?.(sql, binds, options, conn) ?? { rows: [] };
    };
    const claim = await engine.claimFile(KEY);
    expect(claim).not.toBeNull();
    expect(db.trace().slice(0, 3)).toEqual([
      '1:execute:INSERT INTO order_loader_file_claim',
      '1:rollback',
      '1:execute:INSERT INTO order_loader_file_claim',
    ]);
    await claim?.release();
    await engine.close();
  });

  it('a session whose ROLLBACK fails at release is closed (its end ends the lock), and the next claim opens another', async () => {
    const table = new ClaimTable();
    const db = table.database();
    const engine = createOracleEngineWith(db, constants);
    const claim = await engine.claimFile(KEY);
    table.failRollback = 1;
    await claim?.release();
    expect(db.ended.has(1)).toBe(true);
    expect(table.locks.size).toBe(0);
    const next = await engine.claimFile(KEY);
    expect(next).not.toBeNull();
    expect(db.sessions()).toBe(2);
    await next?.release();
    await engine.close();
  });

  it('a staging transaction sees its claim end (the claim session killed); a new holder waits for a batch still open', async () => {
    const table = new ClaimTable();
    const db = table.database();
    const first = createOracleEngineWith(db, constants);
    const second = createOracleEngineWith(db, constants);
    const claim = await first.claimFile(KEY);
    const fence = claim?.fence ?? null;
    expect(fence?.ping).toBeDefined();
    if (fence === null) return;
    const claimSession = db.calls.find((c) => c.kind === 'execute' && c.sql === oracleQuery('file_claim_lock'))?.conn ?? 0;
    expect(await first.transaction((tx) => tx.holdsFileClaim(fence))).toBe(true);
    // the batch's session locked the barrier row; the claim session locked its row again
    const checks = db.calls.filter((c) => c.kind === 'execute' && c.sql.startsWith('SELECT claim_key')).slice(-2);
    expect(checks.map((c) => [c.kind === 'execute' ? c.sql : '', c.conn !== claimSession])).toEqual([
      [oracleQuery('file_claim_barrier'), true],
      [oracleQuery('file_claim_lock'), false],
    ]);
    expect(oracleQuery('file_claim_barrier')).toMatch(/FOR UPDATE NOWAIT$/);
    // a batch that saw its claim held and has not committed yet
    const batch = await openClaimBatch(first, fence);
    expect(batch.held).toBe(true);
    table.kill(claimSession);
    // the claim row is free, but the open batch holds the barrier row: the new holder gives the claim back
    expect(await second.claimFile(KEY)).toBeNull();
    expect(table.locks.get(KEY)).toBeUndefined();
    await batch.commit();
    const taken = await second.claimFile(KEY);
    expect(taken).not.toBeNull();
    // the former holder's next batch: its claim session is gone
    expect(await first.transaction((tx) => tx.holdsFileClaim(fence))).toBe(false);
    // a barrier row another session is passing: the claim is that session's
    table.locks.set(barrierKey(KEY), 99);
    expect(await second.transaction((tx) => tx.holdsFileClaim(taken?.fence ?? fence))).toBe(false);
    table.locks.delete(barrierKey(KEY));
    expect(await second.transaction((tx) => tx.holdsFileClaim(taken?.fence ?? fence))).toBe(true);
    await taken?.release();
    await first.close();
    await second.close();
  });
});
