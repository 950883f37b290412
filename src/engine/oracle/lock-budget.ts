import { primaryOracleCode } from './classify.js';
import { OracleLockWaitTimeout } from './lock-wait-error.js';
import type { OraConnection } from './oracledb-types.js';

/**
 * One transaction's bound on waiting for other sessions (--row-lock-wait), shared by every
 * statement of it that can wait: Oracle has no lock timeout for DML, so each statement is given
 * what is left. `FOR UPDATE WAIT n` statements get the whole seconds left (secondsLeft); a
 * statement that can wait without a WAIT clause — an insert or MERGE meeting a key another
 * session inserted and has not committed, which no SELECT can lock first — gets a call timeout
 * of what is left (withinLockBudget). The bound starts at the first statement that can wait (the
 * claim or the reads before it are not waits), so the first lock statement gets the whole bound.
 */
export class LockBudget {
  private deadline: number | undefined;

  /** `seconds`: --row-lock-wait rounded up to whole seconds (lockWaitSeconds in merge.ts). */
  constructor(
    readonly seconds: number,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Milliseconds left of the bound; the first call starts it. */
  leftMs(): number {
    const now = this.now();
    this.deadline ??= now + this.seconds * 1000;
    return Math.max(0, this.deadline - now);
  }

  /**
   * The whole seconds left, rounded up (0: NOWAIT, only once nothing is left): a statement's own
   * round trip before it (milliseconds) does not cost the next wait a whole second, and a wait
   * that overruns leaves nothing, so the transaction's waits end less than a second past the bound.
   */
  secondsLeft(): number {
    return Math.ceil(this.leftMs() / 1000);
  }
}

/**
 * The least call timeout a statement under the bound is given: the statement's own work runs
 * under the same timer as its wait (a call timeout cannot tell them apart), and one second is
 * the unit of Oracle's WAIT too.
 */
export const MIN_BOUNDED_CALL_MS = 1_000;

/**
 * `call` (one round trip on `connection`) under a call timeout of what is left of `budget`, at
 * least MIN_BOUNDED_CALL_MS, never longer than the connection's own (call_timeout). When that
 * timer ends it, thin mode sends a break, reads the server's answer (ORA-01013: the statement is
 * rolled back, the transaction's earlier work and locks stay) and throws NJS-123 with the
 * connection still connected (lib/thin/protocol/protocol.js _processMessage); that NJS-123 is
 * thrown here as OracleLockWaitTimeout (transient: the transaction rolls back and is run again
 * on the same connection). An NJS-123 of the connection's own call timeout (it was the shorter)
 * stays fatal. No budget: `call` as it is. The connection's own call timeout is set back after.
 * Thin mode times each round trip: a call of two round trips (a PL/SQL block's first execution
 * on a connection) may take the timeout twice.
 */
export async function withinLockBudget<T>(connection: OraConnection, budget: LockBudget | undefined, call: () => Promise<T>): Promise<T> {
  if (budget === undefined) return call();
  const own = connection.callTimeout ?? 0;
  const ms = Math.max(MIN_BOUNDED_CALL_MS, Math.ceil(budget.leftMs()));
  if (own > 0 && own <= ms) return call();
  connection.callTimeout = ms;
  try {
    return await call();
  } catch (error) {
    if (primaryOracleCode(error) === 'NJS-123') throw new OracleLockWaitTimeout(ms, budget.seconds, error);
    throw error;
  } finally {
    try {
      connection.callTimeout = own;
    } catch {
      // a connection closed meanwhile (its socket gone) takes no setting: it is never used again
    }
  }
}
