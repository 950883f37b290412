/**
 * retryingTransient (src/pipeline/retry.ts): the operator commands' transactions run again after a
 * rollback the engine calls transient (deadlock, serialization failure, lock wait), and only then.
 * The real deadlock with another session is in test/integration/lock-wait.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { FailureKind } from '../../src/engine/types.js';
import { retryingTransient } from '../../src/pipeline/retry.js';
import { memoryLogger } from '../support/memory-logger.js';

class CodedError extends Error {
  constructor(readonly code: string) {
    super(`${code} failure`);
  }
}

const classifier = {
  classifyError: (error: unknown): FailureKind =>
    error instanceof CodedError ? (error.code === '40P01' ? 'transient' : error.code === '08006' ? 'fatal' : 'rejected') : 'rejected',
};

/** A transactor whose n-th transaction throws `failures[n]` (or runs the work when there is none). */
function transactor(failures: Array<Error | undefined>) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    async transaction<T>(fn: (tx: string) => Promise<T>): Promise<T> {
      const failure = failures[calls++];
      if (failure !== undefined) throw failure;
      return fn('tx');
    },
  };
}

const policy = { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 };

describe('retryingTransient', () => {
  it('runs the transaction again after transient rollbacks, logging each, and returns its result', async () => {
    const port = transactor([new CodedError('40P01'), new CodedError('40P01')]);
    const logs = memoryLogger();
    const wrapped = retryingTransient(port, classifier, 'retry batch', { policy, logger: logs.logger });
    await expect(wrapped.transaction(async (tx) => `${tx} done`)).resolves.toBe('tx done');
    expect(port.calls).toBe(3);
    const warnings = logs.records.filter((r) => r.msg === 'retry batch: the database rolled the transaction back; running it again');
    expect(warnings.map((r) => r.attempt)).toEqual([1, 2]);
    expect(warnings[0]).toMatchObject({ error: '40P01 failure' });
  });

  it('throws a refusal or a fatal error (a lost connection: the COMMIT may have landed) at once', async () => {
    for (const code of ['23514', '08006']) {
      const port = transactor([new CodedError(code)]);
      const wrapped = retryingTransient(port, classifier, 'recover batch', { policy, logger: memoryLogger().logger });
      await expect(wrapped.transaction(async () => 'never')).rejects.toMatchObject({ code });
      expect(port.calls).toBe(1);
    }
  });

  it('gives up after policy.attempts with the last transient error', async () => {
    const last = new CodedError('40P01');
    const port = transactor([new CodedError('40P01'), new CodedError('40P01'), last, undefined]);
    const wrapped = retryingTransient(port, classifier, 'retry batch', { policy, logger: memoryLogger().logger });
    await expect(wrapped.transaction(async () => 'never')).rejects.toBe(last);
    expect(port.calls).toBe(3);
  });

  it('an interruption during the wait ends it with the error instead of another attempt', async () => {
    const controller = new AbortController();
    const port = transactor([new CodedError('40P01'), undefined]);
    const wrapped = retryingTransient(port, classifier, 'retry batch', {
      policy: { attempts: 5, baseDelayMs: 60_000, maxDelayMs: 60_000 },
      logger: memoryLogger().logger,
      signal: controller.signal,
    });
    const pending = wrapped.transaction(async () => 'never');
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ code: '40P01' });
    expect(port.calls).toBe(1);
  });
});
