/**
 * File claims on PostgreSQL (src/engine/contract.ts FileClaims): a session-level advisory lock
 * (file_claim.sql) on a connection of its own, outside the pool, so that no worker's connection
 * is taken for the length of a file's staging. An advisory lock holds no transaction open: no
 * snapshot or transaction id held back while a large file stages (VACUUM of order_stage goes on),
 * and idle_in_transaction_session_timeout does not apply. The server ends the lock with its
 * session, whatever ended it (kill -9 of the process closes the socket; the backend then ends).
 * A connection through a pooler in transaction mode would lose it: the loader needs a session.
 *
 * A session can end while its run still stages (pg_terminate_backend, a dropped connection), and
 * the run would not notice: so each staging batch checks, in its transaction, that the claim's
 * session still lives, by a mark it holds for its whole life (file_claim_held.sql), behind a
 * barrier that a new holder passes only once that transaction ended (file_claim_barrier.sql); the
 * server's idle_session_timeout is off on the claim session (file_claim_session.sql), which idles
 * while its file stages.
 *
 * PGlite has nothing to claim against: its folder is one process's for a whole command
 * (src/engine/folder-lock.ts) and that process has one connection, so no two runs can stage at
 * once; every claim is granted at once.
 */
import { randomInt } from 'node:crypto';
import { grantedClaim } from '../assemble.js';
import type { ClaimFence, FileClaim, FileClaims } from '../contract.js';
import { sqlQuery } from './rows.js';
import type { PgConnector, PgLease, PgSession } from './session.js';

/** The advisory lock class of file claims ('OLFC'), apart from the bench workspaces' and from one-key (bigint) locks. */
export const FILE_CLAIM_CLASS = 0x4f4c4643;

/** How long one claimFile waits for another session's claim (the claim session's lock_timeout). */
export const CLAIM_WAIT_MS = 1000;

/** The advisory lock class of the barrier a new holder passes before it reads a file's history ('OLFB'). */
export const FILE_CLAIM_BARRIER_CLASS = 0x4f4c4642;

/** The advisory lock class of a claim session's mark ('OLFS'), on a random token of the session's own. */
export const CLAIM_SESSION_CLASS = 0x4f4c4653;

const LOCK_NOT_AVAILABLE = '55P03';

const GRANTED: FileClaim = { release: () => Promise.resolve(), fence: null };

/** In a staging batch's transaction (StagingTx.holdsFileClaim): the claim still held by its session. */
export async function pgHoldsFileClaim(session: PgSession, fence: ClaimFence): Promise<boolean> {
  const params = [FILE_CLAIM_BARRIER_CLASS, fence.key, CLAIM_SESSION_CLASS, fence.token];
  const { rows } = await session.query<{ held: boolean }>(sqlQuery('file_claim_held'), params);
  return rows[0]?.held === true;
}

/** A claim session's lease, with the token of its mark. */
interface ClaimSession extends PgLease {
  token: number;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

export function pgFileClaims(connector: PgConnector): FileClaims & { close(): Promise<void> } {
  if (connector.dedicated === undefined) return { claimFile: () => Promise.resolve(GRANTED), close: () => Promise.resolve() };
  const dedicated: () => Promise<PgLease> = connector.dedicated.bind(connector);
  /** Claim sessions holding no claim, kept for the next file (one connect per run, not per file). */
  const free: ClaimSession[] = [];
  /** Every claim session open, with a claim or without: all are closed with the engine. */
  const sessions = new Set<PgLease>();
  let closed = false;

  async function open(): Promise<ClaimSession> {
    const opened = await dedicated();
    const lease: ClaimSession = {
      session: opened.session,
      // a token another live claim session holds too (1 in 2^32 a pair) would hide this one's end
      token: randomInt(-(2 ** 31), 2 ** 31),
      release: (error?: Error) => {
        sessions.delete(lease);
        opened.release(error);
      },
    };
    sessions.add(lease);
    try {
      await lease.session.query(sqlQuery('file_claim_session'), [CLAIM_WAIT_MS, CLAIM_SESSION_CLASS, lease.token]);
    } catch (error) {
      lease.release(asError(error));
      throw error;
    }
    return lease;
  }

  /** Past the barrier (file_claim_barrier.sql); false when a batch of the claim's former holder stayed open past the wait (the claim given up). */
  async function barrier(lease: ClaimSession, key: string): Promise<boolean> {
    try {
      await lease.session.query(sqlQuery('file_claim_barrier'), [FILE_CLAIM_BARRIER_CLASS, key]);
      return true;
    } catch (error) {
      if ((error as { code?: unknown }).code !== LOCK_NOT_AVAILABLE) throw error;
      await lease.session.query(sqlQuery('file_claim_release'), [FILE_CLAIM_CLASS, key]);
      return false;
    }
  }

  function putBack(lease: ClaimSession): void {
    if (closed) lease.release();
    else free.push(lease);
  }

  return {
    async claimFile(key: string): Promise<FileClaim | null> {
      const lease = free.pop() ?? (await open());
      try {
        await lease.session.query(sqlQuery('file_claim'), [FILE_CLAIM_CLASS, key]);
        if (!(await barrier(lease, key))) {
          putBack(lease);
          return null;
        }
      } catch (error) {
        if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) {
          putBack(lease);
          return null;
        }
        lease.release(asError(error));
        throw error;
      }
      const fence: ClaimFence = { key, token: lease.token };
      return grantedClaim(async () => {
        try {
          await lease.session.query(sqlQuery('file_claim_release'), [FILE_CLAIM_CLASS, key]);
          putBack(lease);
        } catch (error) {
          // closing the session ends its lock all the same
          lease.release(asError(error));
        }
      }, fence);
    },
    close(): Promise<void> {
      // a claim still held (a run that failed past its release) ends with its session
      closed = true;
      free.length = 0;
      for (const lease of [...sessions]) lease.release();
      return Promise.resolve();
    },
  };
}
