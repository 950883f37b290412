import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Engine, RunCounts } from '../engine/types.js';
import { errorMessage } from '../errors.js';
import { DEFAULT_RETRY, withChunkRetry, type RetryPolicy } from './retry.js';

/**
 * The run record of a command that is not a load (init, recover, retry, bench): a load_run row
 * of the command's own name with its events, so that `runs` shows every command that changed
 * data. Its statements are retried like a chunk when the database goes away for a moment.
 */
export interface RecordedRun {
  readonly runId: number;
  event(name: string, detail?: Record<string, unknown>): Promise<void>;
  /** 'completed' event, status COMPLETED. */
  complete(counts: RunCounts): Promise<void>;
  /**
   * 'failed' event with the reason, status FAILED. Tried once: the database may be why the
   * command fails; then the run stays RUNNING until the next start marks it abandoned.
   */
  fail(reason: unknown, counts?: RunCounts): Promise<void>;
}

export async function startRecordedRun(
  engine: Engine,
  command: string,
  options: { logger: Logger; retry?: RetryPolicy | undefined; signal?: AbortSignal | undefined },
  invoked?: Record<string, unknown>,
): Promise<RecordedRun> {
  const db = <T>(what: string, work: () => Promise<T>) =>
    withChunkRetry(engine, what, work, { policy: options.retry ?? DEFAULT_RETRY, logger: options.logger, signal: options.signal });
  const runId = await db('recording the run', () =>
    engine.startRun({ command, fileName: null, fileSize: null, fileSha256: null, host: hostname(), pid: process.pid }),
  );
  const event = (name: string, detail?: Record<string, unknown>) =>
    db('recording the run', () => engine.transaction((tx) => tx.addRunEvent(runId, { event: name, detail })));
  await event('invoked', invoked);
  return {
    runId,
    event,
    async complete(counts) {
      await event('completed');
      await db('recording the end of the run', () => engine.finishRun(runId, 'COMPLETED', counts, null));
    },
    async fail(error, counts = {}) {
      const reason = errorMessage(error);
      try {
        await engine.transaction((tx) => tx.addRunEvent(runId, { event: 'failed', detail: { reason } }));
        await engine.finishRun(runId, 'FAILED', counts, reason);
      } catch (recordError) {
        options.logger.error({ runId, error: errorMessage(recordError) }, 'could not record the end of the run');
      }
    },
  };
}
