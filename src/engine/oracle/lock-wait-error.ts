/**
 * A statement that ran past what was left of its transaction's --row-lock-wait (lock-budget.ts):
 * the driver's NJS-123 for the call timeout the loader set from that bound. Transient
 * (classify.ts): the transaction is rolled back and run again, as PostgreSQL's lock_timeout
 * (55P03) rolls back a batch; the connection is kept (thin mode leaves it connected).
 */
export class OracleLockWaitTimeout extends Error {
  override readonly name = 'OracleLockWaitTimeout';
  readonly code = 'NJS-123';

  constructor(
    readonly callTimeoutMs: number,
    readonly lockWaitSeconds: number,
    cause: unknown,
  ) {
    super(
      `NJS-123: call timeout of ${callTimeoutMs} ms exceeded: the statement waited past --row-lock-wait (${lockWaitSeconds} s for the transaction) for another session (a key it inserted and has not committed, or a row it holds)`,
      { cause },
    );
  }
}
