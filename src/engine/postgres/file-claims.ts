/**
 * File claims on PostgreSQL (src/engine/contract.ts FileClaims): a session-level advisory lock
 * (file_claim.sql) on a connection of its own, outside the pool, so that no worker's connection
 * is taken for the length of a file's staging. An advisory lock holds no transaction open: no
 * snapshot or transaction id held back while a large file stages (VACUUM of order_stage goes on),
 * and idle_in_transaction_session_timeout does not apply. The server ends the lock with its
 * session, whatever ended it (kill -9 of the process closes the socket; the backend then ends).
 * A connection through a pooler in transaction mode would lose it: the loader needs a session.
 *
 * PGlite has nothing to claim against: its folder is one process's for a whole command
 * (src/engine/folder-lock.ts) and that process has one connection, so no two runs can stage at
 * once; every claim is granted at once.
 */
import { grantedClaim } from '../assemble.js';
import type { FileClaim, FileClaims } from '../contract.js';
import { sqlQuery } from './rows.js';
import type { PgConnector, PgLease } from './session.js';

/** The advisory lock class of file claims ('OLFC'), apart from the bench workspaces' and from one-key (bigint) locks. */
export const FILE_CLAIM_CLASS = 0x4f4c4643;

/** How long one claimFile waits for another session's claim (the claim session's lock_timeout). */
export const CLAIM_WAIT_MS = 1000;

const LOCK_NOT_AVAILABLE = '55P03';

const GRANTED: FileClaim = { release: () => Promise.resolve() };

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

export function pgFileClaims(connector: PgConnector): FileClaims & { close(): Promise<void> } {
  if (connector.dedicated === undefined) return { claimFile: () => Promise.resolve(GRANTED), close: () => Promise.resolve() };
  const dedicated: () => Promise<PgLease> = connector.dedicated.bind(connector);
  /** Claim sessions holding no claim, kept for the next file (one connect per run, not per file). */
  const free: PgLease[] = [];
  /** Every claim session open, with a claim or without: all are closed with the engine. */
  const sessions = new Set<PgLease>();
  let closed = false;

  async function open(): Promise<PgLease> {
    const opened = await dedicated();
    const lease: PgLease = {
      session: opened.session,
      release: (error?: Error) => {
        sessions.delete(lease);
        opened.release(error);
      },
    };
    sessions.add(lease);
    try {
      await lease.session.exec(`SET lock_timeout = ${CLAIM_WAIT_MS}`);
    } catch (error) {
      lease.release(asError(error));
      throw error;
    }
    return lease;
  }

  function putBack(lease: PgLease): void {
    if (closed) lease.release();
    else free.push(lease);
  }

  return {
    async claimFile(key: string): Promise<FileClaim | null> {
      const lease = free.pop() ?? (await open());
      try {
        await lease.session.query(sqlQuery('file_claim'), [FILE_CLAIM_CLASS, key]);
      } catch (error) {
        if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) {
          putBack(lease);
          return null;
        }
        lease.release(asError(error));
        throw error;
      }
      return grantedClaim(async () => {
        try {
          await lease.session.query(sqlQuery('file_claim_release'), [FILE_CLAIM_CLASS, key]);
          putBack(lease);
        } catch (error) {
          // closing the session ends its lock all the same
          lease.release(asError(error));
        }
      });
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
