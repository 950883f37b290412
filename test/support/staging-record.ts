/**
 * An engine whose transactions record each stageBatch's result (how the batch was staged: COPY
 * or the function, on PostgreSQL), for tests that must know which path wrote their rows.
 */
import type { Engine, EngineTx } from '../../src/engine/contract.js';
import type { StageBatchResult } from '../../src/engine/types.js';

export function recordingStaging(seen: StageBatchResult[]): (engine: Engine) => Engine {
  return (inner) => {
    const wrapped = Object.create(inner) as Engine;
    wrapped.transaction = (fn, options) =>
      inner.transaction(async (tx) => {
        const proxy = new Proxy(tx, {
          get(target, prop, receiver) {
            const value: unknown = Reflect.get(target, prop, receiver);
            if (prop !== 'stageBatch' || typeof value !== 'function') return value;
            return async (...args: Parameters<EngineTx['stageBatch']>) => {
              const result = await (value as EngineTx['stageBatch']).apply(target, args);
              seen.push(result);
              return result;
            };
          },
        });
        return fn(proxy);
      }, options);
    wrapped.classifyError = (e) => inner.classifyError(e);
    return wrapped;
  };
}
