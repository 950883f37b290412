/**
 * File claims on Oracle (src/engine/contract.ts FileClaims): the identity's row of
 * order_loader_file_claim (migration 012) locked FOR UPDATE by a session of its own, outside the
 * driver's connections (openSession: not counted against its cap, so no worker waits for a
 * connection while a file stages). Given up by a ROLLBACK; Oracle ends the lock with the
 * session, whatever ended it (kill -9 of the process: the server sees the socket closed, or
 * the connection's expireTime keepalive fails, and PMON rolls the session back). A row lock
 * rather than DBMS_LOCK.REQUEST, which needs an EXECUTE grant the loader's user may not have.
 */
import { grantedClaim } from '../assemble.js';
import type { FileClaim, FileClaims } from '../contract.js';
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

  async function lockRow(connection: OraConnection, key: string): Promise<boolean> {
    const binds = { claim_key: kit.binds.str(key, CLAIM_KEY_BYTES) };
    try {
      await connection.execute(oracleQuery('file_claim_insert'), binds, { autoCommit: false });
      await connection.commit();
    } catch (error) {
      if (primaryOracleCode(error) !== UNIQUE_VIOLATED) throw error;
      await connection.rollback();
    }
    try {
      const rows = rowsOf(await connection.execute(oracleQuery('file_claim_lock'), binds, kit.queryOptions));
      if (rows.length !== 1) throw new Error('file claim: its row is missing after it was inserted');
      return true;
    } catch (error) {
      if (primaryOracleCode(error) === WAIT_TIMEOUT) return false;
      throw error;
    }
  }

  return {
    async claimFile(key: string): Promise<FileClaim | null> {
      const connection = free.pop() ?? (await open());
      let locked: boolean;
      try {
        locked = await lockRow(connection, key);
      } catch (error) {
        await close(connection);
        throw error;
      }
      if (!locked) {
        await putBack(connection);
        return null;
      }
      return grantedClaim(() => putBack(connection));
    },
    async close(): Promise<void> {
      // a claim still held (a run that failed past its release) ends with its session
      closed = true;
      free.length = 0;
      await Promise.all([...sessions].map(close));
    },
  };
}
