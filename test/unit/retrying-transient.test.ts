/**
 * The two retry rules of src/pipeline/retry.ts, which share one backoff loop:
 * - retryingTransient: the operator commands' transactions run again after a rollback the engine
 *   calls transient (deadlock, serialization failure, lock wait), and only then. The real deadlock
 *   with another session is in test/integration/lock-wait.test.ts.
 * - withChunkRetry: a chunk's or a batch's transaction runs again after anything but a refusal,
 *   and a run that gives up says why in a RunAbortedError (the faults tests run it against
 *   databases).
 */
import { describe, expect, it } from 'vitest';
import type { FailureKind } from '../../src/engine/types.js';
import { FileClaimLostError, RunAbortedError } from '../../src/errors.js';
import { retryingTransient, withChunkRetry } from '../../src/pipeline/retry.js';
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
    expect(warnings[0]).toMatchObject({ kind: 'transient', error: '40P01 failure' });
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

describe('withChunkRetry', () => {
  /** Work whose n-th call throws `failures[n]` (or returns 'committed' when there is none). */
  function work(failures: Array<Error | undefined>) {
    let calls = 0;
    return {
      get calls() {
        return calls;
      },
      run: (): Promise<string> => {
        const failure = failures[calls++];
        return failure === undefined ? Promise.resolve('committed') : Promise.reject(failure);
      },
    };
  }

  it('runs the work again after transient and fatal failures, logging each with its kind', async () => {
    const chunk = work([new CodedError('40P01'), new CodedError('08006')]);
    const logs = memoryLogger();
    await expect(withChunkRetry(classifier, 'chunk 7', chunk.run, { policy, logger: logs.logger })).resolves.toBe('committed');
    expect(chunk.calls).toBe(3);
    const warnings = logs.records.filter((r) => r.msg === 'chunk 7 rolled back; retrying');
    expect(warnings.map((r) => [r.attempt, r.kind])).toEqual([
      [1, 'transient'],
      [2, 'fatal'],
    ]);
  });

  it('stops at once on a lost file claim, whatever the engine calls it, and throws it as it is', async () => {
    const lost = new FileClaimLostError('a.csv', 40);
    const batch = work([lost, undefined]);
    const anyTransient = { classifyError: (): FailureKind => 'transient' };
    const thrown = await withChunkRetry(anyTransient, 'batch', batch.run, { policy, logger: memoryLogger().logger }).catch(
      (e: unknown) => e,
    );
    expect(thrown).toBe(lost);
    expect(batch.calls).toBe(1);
    expect(lost).toBeInstanceOf(RunAbortedError);
    expect(lost.message).toMatch(
      /^a\.csv: this run's claim on the file ended while it staged it .* lines up to 40 rolled back; run the command again/,
    );
  });

  it('stops at once on a refusal, with the cause kept', async () => {
    const refused = new CodedError('23514');
    const chunk = work([refused]);
    const thrown = await withChunkRetry(classifier, 'chunk 7', chunk.run, { policy, logger: memoryLogger().logger }).catch(
      (e: unknown) => e,
    );
    expect(thrown).toBeInstanceOf(RunAbortedError);
    expect(thrown).toMatchObject({ message: 'chunk 7 failed: 23514 failure', cause: refused });
    expect(chunk.calls).toBe(1);
  });

  it('gives up after policy.attempts, counting them in the message', async () => {
    const chunk = work([new CodedError('08006'), new CodedError('08006'), new CodedError('08006'), undefined]);
    const thrown = await withChunkRetry(classifier, 'chunk 7', chunk.run, { policy, logger: memoryLogger().logger }).catch(
      (e: unknown) => e,
    );
    expect((thrown as Error).message).toMatch(/^chunk 7 failed 3 times, giving up: 08006 failure \(nothing of it was committed; /);
    expect(chunk.calls).toBe(3);
  });

  it('an interruption during the wait stops without another attempt, saying it was asked to', async () => {
    const controller = new AbortController();
    const chunk = work([new CodedError('08006'), undefined]);
    const pending = withChunkRetry(classifier, 'chunk 7', chunk.run, {
      policy: { attempts: 5, baseDelayMs: 60_000, maxDelayMs: 60_000 },
      logger: memoryLogger().logger,
      signal: controller.signal,
    }).catch((e: unknown) => e);
    setTimeout(() => controller.abort(), 20);
    const thrown = await pending;
    expect(thrown).toBeInstanceOf(RunAbortedError);
    expect(thrown).toMatchObject({
      reason: 'interrupted',
      message: 'chunk 7 stopped as asked after 1 attempt: 08006 failure (nothing of it was committed; run the command again)',
    });
    expect(chunk.calls).toBe(1);
  });
});
