import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { RunCounts, RunEventInput } from '../engine/types.js';
import { errorMessage } from '../errors.js';
import type { ErrorClassifier, RunRecordPort } from './ports.js';
import { DEFAULT_RETRY, withChunkRetry, type RetryPolicy } from './retry.js';
import { holdAfterStep } from './test-hold.js';

/**
 * A command's load_run row and its events, written through one object: every command that
 * changes data has one, so that `runs` shows it. Each `load`/`stage` file is a run of its own.
 */
export interface RecordedRun {
  readonly runId: number;
  /** Append an event. */
  event(name: string, detail?: RunEventInput['detail']): Promise<void>;
  /** The 'completed' event (or 'failed' with `message` as its reason), then the row's status, counts and message. */
  finish(status: 'COMPLETED' | 'FAILED', counts: RunCounts, message: string | null): Promise<void>;
  /** finish('COMPLETED', counts, null). */
  complete(counts: RunCounts): Promise<void>;
  /**
   * 'failed' event with the reason, status FAILED. Tried once, and a failure to record it is
   * logged, not thrown: the database may be why the command fails; then the run stays RUNNING
   * until the next start marks it abandoned.
   */
  fail(reason: unknown, counts?: RunCounts): Promise<void>;
}

export interface RunRecordOptions {
  logger: Logger;
  retry?: RetryPolicy | undefined;
  signal?: AbortSignal | undefined;
}

/** What a run is about: a file, or nothing (the commands that are not a load). */
export interface RunSubject {
  file?: { path: string; size: number } | null | undefined;
  sha256?: string | null | undefined;
}

/**
 * Start a run; no event yet. Run-level statements (the row, its events) are retried with
 * backoff like a chunk when the database goes away for a moment (a restart): otherwise a
 * restart landing on one of them (e.g. the "processed" event after the last chunk) failed the
 * whole run, exit 1, as an "unexpected error" (test/survival/restart.test.ts).
 */
export async function startRun(
  engine: RunRecordPort,
  command: string,
  subject: RunSubject,
  options: RunRecordOptions,
): Promise<RecordedRun> {
  const runId = await retried(engine, options)('recording the run', () =>
    engine.startRun({
      command,
      fileName: subject.file?.path ?? null,
      fileSize: subject.file?.size ?? null,
      fileSha256: subject.sha256 ?? null,
      host: hostname(),
      pid: process.pid,
    }),
  );
  await holdAfterStep('run_started', options.logger);
  return recordedRun(engine, runId, options);
}

/** The run `runId`, started earlier (a `retry` hands its run on to the processing that follows). */
export function recordedRun(engine: RunRecordPort, runId: number, options: RunRecordOptions): RecordedRun {
  const db = retried(engine, options);
  const addEvent = (event: RunEventInput) => engine.transaction((tx) => tx.addRunEvent(runId, event));
  const endEvent = (status: 'COMPLETED' | 'FAILED', message: string | null): RunEventInput => ({
    event: status === 'COMPLETED' ? 'completed' : 'failed',
    detail: message === null ? undefined : { reason: message },
  });
  const run: RecordedRun = {
    runId,
    async event(name, detail) {
      await db('recording the run', () => addEvent({ event: name, detail }));
      await holdAfterStep(name, options.logger);
    },
    async finish(status, counts, message) {
      const end = endEvent(status, message);
      await db('recording the end of the run', () => addEvent(end));
      await holdAfterStep(end.event, options.logger);
      await db('recording the end of the run', () => engine.finishRun(runId, status, counts, message));
    },
    complete: (counts) => run.finish('COMPLETED', counts, null),
    async fail(error, counts = {}) {
      const reason = errorMessage(error);
      try {
        await addEvent(endEvent('FAILED', reason));
        await engine.finishRun(runId, 'FAILED', counts, reason);
      } catch (recordError) {
        options.logger.error({ runId, error: errorMessage(recordError) }, 'could not record the end of the run');
      }
    },
  };
  return run;
}

/** A run of a command that is not a load (init, recover, retry, bench), with its 'invoked' event. */
export async function startRecordedRun(
  engine: RunRecordPort,
  command: string,
  options: RunRecordOptions,
  invoked?: Record<string, unknown>,
): Promise<RecordedRun> {
  const run = await startRun(engine, command, {}, options);
  await run.event('invoked', invoked);
  return run;
}

/** Run-level work retried like a chunk (see startRun). */
export function retried(engine: ErrorClassifier, options: RunRecordOptions) {
  return <T>(what: string, work: () => Promise<T>): Promise<T> =>
    withChunkRetry(engine, what, work, { policy: options.retry ?? DEFAULT_RETRY, logger: options.logger, signal: options.signal });
}
