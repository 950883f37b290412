import { createRequire } from 'node:module';
import type { Engine, EngineTx, TransactionOptions } from '../../src/engine/types.js';

/**
 * An engine that delegates to a real one but lets a test break a transaction at a chosen
 * step (fault injection): `fault(step, txNo)` returns an error to throw, or undefined.
 */
export function faultyEngine(inner: Engine, fault: (step: keyof EngineTx, txNo: number) => Error | undefined): Engine {
  let txNo = 0;
  const wrapped: Engine = Object.create(inner) as Engine;
  // the caller's options (lock wait) reach the real transaction: a fault test runs what a real one runs
  wrapped.transaction = <T>(fn: (tx: EngineTx) => Promise<T>, options?: TransactionOptions) =>
    inner.transaction(async (tx) => {
      const n = ++txNo;
      const proxy = new Proxy(tx, {
        get(target, prop, receiver) {
          const value: unknown = Reflect.get(target, prop, receiver);
          if (typeof value !== 'function') return value;
          return async (...args: unknown[]) => {
            const result: unknown = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            const error = fault(prop as keyof EngineTx, n);
            if (error !== undefined) throw error;
            return result;
          };
        },
      });
      return fn(proxy);
    }, options);
  wrapped.classifyError = (e) => inner.classifyError(e);
  return wrapped;
}

/** The code a lost connection carries on each engine: SQLSTATE 08006 (class 08), node-oracledb's NJS-500. */
export function lostConnectionCode(kind: string): string {
  return kind === 'oracle' ? 'NJS-500' : '08006';
}

interface OracledbErrors {
  ERR_CONNECTION_CLOSED: number;
  ERR_CONNECTION_EOF: number;
  getErr(errorNum: number, ...args: unknown[]): Error & { code: string; isRecoverable?: boolean };
}

/**
 * A lost connection as the engine of `kind` meets it, so that its own classifier decides:
 *  - PostgreSQL and PGlite: SQLSTATE 08006 (connection failure);
 *  - Oracle: what thin mode throws when the socket ends under a call (lib/thin/sqlnet/ntTcp.js
 *    checkErr): NJS-500 ("closed or broken", isRecoverable) with the NJS-521 end-of-file line
 *    after it, made by the driver's own lib/errors.js so that code and text are the driver's.
 * The words "injected: connection lost" are in both messages (Oracle: as the connection id, on
 * the second line, which a logged description leaves out).
 */
export function connectionLost(kind: string): Error {
  if (kind !== 'oracle') return Object.assign(new Error('injected: connection lost'), { code: lostConnectionCode(kind) });
  const errors = createRequire(import.meta.url)('oracledb/lib/errors.js') as OracledbErrors;
  const eof = errors.getErr(errors.ERR_CONNECTION_EOF, '127.0.0.1', 1521, 'injected: connection lost');
  const closed = errors.getErr(errors.ERR_CONNECTION_CLOSED);
  closed.message = `${closed.message}\n${eof.message}`;
  return closed;
}

/**
 * An engine whose chosen transactions commit and then report a lost connection, as when the
 * reply to COMMIT never arrives: `lose(txNo, stepsCalled)` says which.
 */
export function lostCommitReplies(inner: Engine, lose: (txNo: number, steps: Set<string>) => boolean): Engine {
  let txNo = 0;
  const wrapped: Engine = Object.create(inner) as Engine;
  wrapped.transaction = async <T>(fn: (tx: EngineTx) => Promise<T>, options?: TransactionOptions) => {
    const n = ++txNo;
    const steps = new Set<string>();
    const result = await inner.transaction(
      (tx) =>
        fn(
          new Proxy(tx, {
            get(target, prop, receiver) {
              if (typeof prop === 'string') steps.add(prop);
              return Reflect.get(target, prop, receiver) as unknown;
            },
          }),
        ),
      options,
    );
    if (lose(n, steps)) throw connectionLost(inner.kind);
    return result;
  };
  wrapped.classifyError = (e) => inner.classifyError(e);
  return wrapped;
}
