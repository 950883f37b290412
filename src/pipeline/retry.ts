import type { Logger } from 'pino';
import type { TransactionOptions, Transactor } from '../engine/contract.js';
import { FileClaimLostError, RunAbortedError, UserError } from '../errors.js';
import { describeDbError, isOutOfSpace } from './db-error.js';
import type { FailureKind } from '../engine/types.js';
import type { ErrorClassifier } from './ports.js';
import { sleep } from '../sleep.js';

export interface RetryPolicy {
  /** Attempts in all (the first one included) for a chunk or batch that fails as a whole. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** What an out-of-space failure tells the operator, whichever statement met it. */
export const OUT_OF_SPACE = 'the database is out of space: free some or extend it, then run the command again';

export const DEFAULT_RETRY: RetryPolicy = { attempts: 6, baseDelayMs: 500, maxDelayMs: 15_000 };

/** Exponential backoff with full jitter: a random delay in [base·2^(n-1) / 2, base·2^(n-1)], capped. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

interface LoopOptions {
  policy: RetryPolicy;
  logger: Logger;
  signal?: AbortSignal | undefined;
}

/**
 * The one backoff loop of both retry rules below: run `work`; on an error, classified once by the
 * engine, `giveUp` says whether to stop (returning what to throw), given the error's kind and
 * description, the attempt number and whether the run was interrupted; otherwise log `message`
 * with the attempt, the delay, the kind and the description, wait, and run it again. An
 * interruption (SIGINT, SIGTERM) during the wait ends the loop through `giveUp` at once, without
 * another attempt: the work rolled back, so nothing is left half-done.
 */
async function backoffLoop<T>(
  work: () => Promise<T>,
  classifier: ErrorClassifier,
  options: LoopOptions,
  giveUp: (error: unknown, failure: { kind: FailureKind; description: string; attempt: number; stopped: boolean }) => unknown,
  message: string,
): Promise<T> {
  const stopped = (): boolean => options.signal?.aborted === true;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const failure = { kind: classifier.classifyError(error), description: describeDbError(error), attempt, stopped: stopped() };
      const thrown = giveUp(error, failure);
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- what the rule says to throw: its own error, or the driver's as it came
      if (thrown !== undefined) throw thrown;
      const delay = backoffDelay(attempt, options.policy.baseDelayMs, options.policy.maxDelayMs);
      options.logger.warn({ attempt, delayMs: delay, kind: failure.kind, error: failure.description }, message);
      await sleep(delay, options.signal);
      if (stopped()) throw giveUp(error, { ...failure, stopped: true }) ?? error;
    }
  }
}

/**
 * Run one unit of work (a chunk's or a batch's transaction). When it fails as a whole for a
 * reason that is not the data's (connection lost, server restarting, deadlock on the chunk),
 * the transaction has rolled back: wait and run it again, a bounded number of times. Anything
 * else, or an exhausted budget, stops the run with a one-line reason.
 */
export async function withChunkRetry<T>(engine: ErrorClassifier, what: string, work: () => Promise<T>, options: LoopOptions): Promise<T> {
  return backoffLoop(
    work,
    engine,
    options,
    (error, { kind, description, attempt, stopped }) => {
      // the claim does not come back by trying again: another run may be staging the file now
      if (error instanceof FileClaimLostError) return error;
      if (kind === 'rejected') return new RunAbortedError(`${what} failed: ${description}`, 'fatal', { cause: error });
      // a full disk does not empty itself in seconds, and each attempt writes its WAL again
      // before it fails: on PGlite the retries filled what was left until PostgreSQL could not
      // write its WAL at all, and the process spun on, deaf to signals, holding the folder
      if (isOutOfSpace(error)) return new RunAbortedError(`${what} failed: ${OUT_OF_SPACE} (${description})`, 'fatal', { cause: error });
      if (attempt < options.policy.attempts && !stopped) return undefined;
      if (attempt < options.policy.attempts) {
        // asked to stop (SIGINT, SIGTERM) while the budget was not spent: say so, not "giving up"
        return new RunAbortedError(
          `${what} stopped as asked after ${attempt} attempt${attempt > 1 ? 's' : ''}: ${description} (nothing of it was committed; run the command again)`,
          'interrupted',
          { cause: error },
        );
      }
      return new RunAbortedError(
        `${what} failed ${attempt} time${attempt > 1 ? 's' : ''}, giving up: ${description} (nothing of it was committed; run the command again once the database is back)`,
        'fatal',
        { cause: error },
      );
    },
    `${what} rolled back; retrying`,
  );
}

/**
 * An operator's transactions (`retry`, `recover`) run again when the database rolled one back for
 * a reason of the moment: a deadlock with a `load` that stages the same keys (staging locks their
 * rows in the file's order, `retry` in stage_id order), a serialization failure, a lock wait that
 * ran out. The engine classifies those as transient, and such an error means the transaction
 * rolled back whole: nothing of it committed, so running it again is safe, and it reads its rows
 * afresh. Anything else (a refused request, a lost connection, after which a COMMIT may have
 * landed) is thrown as it was, as is the last transient error once `policy.attempts` are spent.
 */
export function retryingTransient<Tx>(
  port: Transactor<Tx>,
  classifier: ErrorClassifier,
  what: string,
  options: LoopOptions,
): Transactor<Tx> {
  return {
    transaction<T>(fn: (tx: Tx) => Promise<T>, txOptions?: TransactionOptions): Promise<T> {
      return backoffLoop(
        () => port.transaction(fn, txOptions),
        classifier,
        options,
        (error, { kind, attempt, stopped }) => (kind !== 'transient' || attempt >= options.policy.attempts || stopped ? error : undefined),
        `${what}: the database rolled the transaction back; running it again`,
      );
    },
  };
}

/**
 * A `retry` whose first batch the database kept rolling back (a row another session held past
 * --row-lock-wait, a deadlock) until `attempts` were spent: said as such, not as an unexpected
 * error; nothing of that batch was written. Anything else is returned as it is.
 */
export function retryGaveUp(error: unknown, classifier: ErrorClassifier, attempts: number): unknown {
  if (error instanceof UserError || error instanceof RunAbortedError || classifier.classifyError(error) !== 'transient') return error;
  return new RunAbortedError(
    `retry stopped: its batch was rolled back ${attempts} times: ${describeDbError(error)} (a row it chose is held by another session longer than --row-lock-wait, or deadlocked); nothing was changed: run the same command again`,
    'fatal',
    { cause: error },
  );
}
