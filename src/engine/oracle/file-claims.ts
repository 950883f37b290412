/**
 * File claims on Oracle (src/engine/contract.ts FileClaims): the identity's row of
 * order_loader_file_claim (migration 012) locked FOR UPDATE by a session of its own, outside the
 * driver's connections (openSession: not counted against its cap, so no worker waits for a
 * connection while a file stages). Given up by a ROLLBACK; Oracle ends the lock with the
 * session, whatever ended it (kill -9 of the process: the server sees the socket closed, or
 * the connection's expireTime keepalive fails, and PMON rolls the session back). A row lock
 * rather than DBMS_LOCK.REQUEST, which needs an EXECUTE grant the loader's user may not have.
 *
 * A session can end while its run still stages (ALTER SYSTEM KILL SESSION, a profile's IDLE_TIME,
 * a dropped connection) and the run would not notice: so each staging batch locks, in its
 * transaction, the identity's barrier row (a second row of the table, never a claim key), then
 * locks the claim row again on the claim's session (oracleHoldsFileClaim); a new holder locks the
 * barrier row for a moment (under a savepoint) before it reads the file's history, so it waits
 * for a batch of the former holder that is still open. The batch's round trip on the claim
 * session also keeps that session from idling for the length of a file.
 */
import { grantedClaim } from '../assemble.js';
import type { ClaimFence, FileClaim, FileClaims } from '../contract.js';
import { primaryOracleCode } from './classify.js';
import { closeUntilGone, openSession } from './driver.js';
import type { OraConnection, OraConnector } from './oracledb-types.js';
import { rowsOf, type OracleKit } from './rows.js';
import { oracleQuery } from './sql-text.js';

/** The key is 64 hex digits (VARCHAR2(64 CHAR)). */
const CLAIM_KEY_BYTES = 256;
/** Two sessions made the same new row at once: the other's is there. */
const UNIQUE_VIOLATED = 'ORA-00001';
/** FOR UPDATE WAIT 1 ran out: another session holds the claim. */
const WAIT_TIMEOUT = 'ORA-30006';
/** FOR UPDATE NOWAIT: another session holds the row. */
const RESOURCE_BUSY = 'ORA-00054';

/** The identity's barrier row: its key is never a claim's (those are 64 hex digits). */
export function barrierKey(key: string): string {
  return `b:${key.slice(2)}`;
}

/**
 * In a staging batch's transaction (StagingTx.holdsFileClaim): the barrier row locked until the
 * transaction ends (busy: a new holder is passing it, the claim is another's), then the claim row
 * locked again on the claim's session (its own lock: at once; that session gone: rejects).
 */
export async function oracleHoldsFileClaim(connection: OraConnection, kit: OracleKit, fence: ClaimFence): Promise<boolean> {
  const binds = { claim_key: kit.binds.str(barrierKey(fence.key), CLAIM_KEY_BYTES) };
  try {
    const rows = rowsOf(await connection.execute(oracleQuery('file_claim_barrier'), binds, kit.queryOptions));
    if (rows.length !== 1) throw new Error('file claim: its barrier row is missing');
  } catch (error) {
    if (primaryOracleCode(error) === RESOURCE_BUSY) return false;
    throw error;
  }
  try {
    await fence.ping?.();
    return true;
  } catch {
    return false;
  }
}

export function oracleFileClaims(connector: OraConnector, kit: OracleKit, callTimeoutMs: number): FileClaims & { close(): Promise<void> } {
  /** Claim sessions holding no claim, kept for the next file (one logon per run, not per file). */
  const free: OraConnection[] = [];
  /** Every claim session open, with a claim or without: all are closed with the engine. */
  const sessions = new Set<OraConnection>();
  let closed = false;

  async function open(): Promise<OraConnection> {
    const connection = await openSession(connector, callTimeoutMs);
    sessions.add(connection);
    return connection;
  }

  async function close(connection: OraConnection): Promise<void> {
    sessions.delete(connection);
    await closeUntilGone(connection);
  }

  async function putBack(connection: OraConnection): Promise<void> {
    try {
      await connection.rollback();
    } catch {
      // a session that cannot roll back is closed: its end ends whatever it held
      await close(connection);
      return;
    }
    if (closed) await close(connection);
    else free.push(connection);
  }

  const bindKey = (key: string) => ({ claim_key: kit.binds.str(key, CLAIM_KEY_BYTES) });

  /** The row of `key` there, committed (made if missing). */
  async function ensureRow(connection: OraConnection, key: string): Promise<void> {
    try {
      await connection.execute(oracleQuery('file_claim_insert'), bindKey(key), { autoCommit: false });
      await connection.commit();
    } catch (error) {
      if (primaryOracleCode(error) !== UNIQUE_VIOLATED) throw error;
      await connection.rollback();
    }
  }

  /** The row of `key` locked by the session (waiting a second at most); false when another holds it. */
  async function lockRow(connection: OraConnection, key: string): Promise<boolean> {
    try {
      const rows = rowsOf(await connection.execute(oracleQuery('file_claim_lock'), bindKey(key), kit.queryOptions));
      if (rows.length !== 1) throw new Error('file claim: its row is missing after it was inserted');
      return true;
    } catch (error) {
      if (primaryOracleCode(error) === WAIT_TIMEOUT) return false;
      throw error;
    }
  }

  /** The claim row locked, then the barrier row passed (a former holder's open batch ended); false: either is held. */
  async function claimRows(connection: OraConnection, key: string): Promise<boolean> {
    await ensureRow(connection, key);
    await ensureRow(connection, barrierKey(key));
    if (!(await lockRow(connection, key))) return false;
    await connection.execute(oracleQuery('file_claim_savepoint'), {}, { autoCommit: false });
    const passed = await lockRow(connection, barrierKey(key));
    await connection.execute(oracleQuery('file_claim_savepoint_back'), {}, { autoCommit: false });
    return passed;
  }

  return {
    async claimFile(key: string): Promise<FileClaim | null> {
      const connection = free.pop() ?? (await open());
      let locked: boolean;
      try {
        locked = await claimRows(connection, key);
      } catch (error) {
        await close(connection);
        throw error;
      }
      if (!locked) {
        await putBack(connection);
        return null;
      }
      const ping = async (): Promise<void> => {
        if (!(await lockRow(connection, key))) throw new Error('file claim: held by another session');
      };
      return grantedClaim(() => putBack(connection), { key, ping });
    },
    async close(): Promise<void> {
      // a claim still held (a run that failed past its release) ends with its session
      closed = true;
      free.length = 0;
      await Promise.all([...sessions].map(close));
    },
  };
}
