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

/** An error that the PostgreSQL engine classifies as "connection lost" (SQLSTATE class 08). */
export function connectionLost(): Error {
  return Object.assign(new Error('injected: connection lost'), { code: '08006' });
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
    if (lose(n, steps)) throw connectionLost();
    return result;
  };
  wrapped.classifyError = (e) => inner.classifyError(e);
  return wrapped;
}
