/** The processing side of `load` and `process`: processBacklog's options, why it stopped, and its run beside staging. */
import type { LoadOptions, ProcessRunOptions } from './load-options.js';
import type { LoadPort } from './ports.js';
import { processBacklog, type ProcessResult } from './process.js';

/** A promise and its resolve (Promise.withResolvers is Node 22's; the package runs on 20). */
function newsPromise(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** processBacklog's options, from the command's. */
export function processOptions(runId: number, options: ProcessRunOptions) {
  return {
    runId,
    chunkSize: options.chunkSize,
    workers: options.workers,
    maxAttempts: options.maxAttempts,
    maxErrors: options.maxErrors,
    rowRetryBaseMs: options.rowRetryBaseMs,
    rowRetryMaxMs: options.rowRetryMaxMs,
    lockWaitMs: options.lockWaitMs,
    retry: options.retry,
    logger: options.logger,
    signal: options.signal,
    onChunk: options.onProcessProgress,
    idleWaitMs: options.idleWaitMs,
  };
}

/** The one-line reason processing stopped early (the run then fails, exit 1), or null. */
export function stoppedMessage(
  stopped: ProcessResult['stopped'],
  maxErrors: number | undefined,
  errored: number,
  rejected = 0,
): string | null {
  if (stopped === 'interrupted') return 'interrupted: the current chunk was finished or rolled back; run the command again to continue';
  if (stopped === 'max-errors') return maxErrorsMessage(maxErrors ?? 0, rejected, errored);
  return null;
}

/**
 * --max-errors N counts, as SQL*Loader's ERRORS=, every row the run rejected: the lines of its
 * files rejected while staging (a file skipped or resumed counts those its load rejected
 * before, so the same file always gives the same answer) and the rows its processing ended
 * ERROR. N of them are allowed; one more stops the run (exit 1), and what was committed stays.
 */
export function maxErrorsMessage(maxErrors: number, rejected: number, errored: number): string {
  return `stopped: more than --max-errors ${maxErrors} rows rejected (${rejected} line(s) rejected while staging, ${errored} row(s) ended ERROR while processing; committed batches and chunks stay)`;
}

/**
 * The processing of a `load`: on a server database it starts with the first file's run and
 * processes while staging (the default; `--no-overlap`, `overlap: false`, processes after
 * staging). Staging is bound by this process's CPU (parsing), processing by the database, so
 * together they take about the longer of the two instead of their sum (bench/RESULTS.md). The
 * outcome is that of sequential phases: the keys on more than one line of the run's files are
 * found by a pre-scan and their rows staged HELD, which the claim skips, until the run's staging
 * ends (src/pipeline/load.ts), so an earlier line of a key never reaches orders before its last
 * line is staged. PGlite has one connection: its phases always run in sequence.
 */
export class LoadProcessing {
  readonly overlap: boolean;
  /** Stops staging too: the caller's signal, or a processing failure. */
  readonly signal: AbortSignal;
  private readonly internal = new AbortController();
  private stagingDone = false;
  private running: Promise<ProcessResult> | null = null;
  private startedAt = 0;
  private hungry = false;
  /** Settled (and replaced) when staging commits a batch or ends: wakes idle workers (stagingNews). */
  private news = newsPromise();

  constructor(
    private readonly engine: LoadPort,
    command: 'load' | 'stage',
    private readonly options: LoadOptions,
    private readonly rejectedWhileStaging: () => number,
    private readonly ownLoad?: (loadId: number | null) => boolean,
  ) {
    this.overlap = command === 'load' && options.overlap !== false && engine.capabilities.concurrentConnections;
    this.signal = options.signal === undefined ? this.internal.signal : AbortSignal.any([options.signal, this.internal.signal]);
  }

  start(runId: number): void {
    if (this.running !== null) return;
    this.startedAt = performance.now();
    this.running = processBacklog(this.engine, {
      ...processOptions(runId, this.options),
      signal: this.signal,
      stagingDone: this.overlap ? () => this.stagingDone : undefined,
      stagingNews: () => this.news.promise,
      onIdle: () => {
        this.hungry = true;
      },
      rejectedWhileStaging: this.rejectedWhileStaging,
      ownLoad: this.ownLoad,
    });
    // awaited by result(); a failure also stops the staging loop
    this.running.catch(() => this.internal.abort());
  }

  /** Whether processing was started (with the first file's run under --overlap, or after staging). */
  get started(): boolean {
    return this.running !== null;
  }

  /**
   * Whether the next staging batch should be left to processing (staged READY, not settled):
   * processing beside staging found nothing to claim since the last batch it was given. Settling
   * puts a batch's whole database work (COPY, check, MERGE) on staging's connection; processing's
   * connection would idle. Giving processing a batch whenever it runs dry keeps both connections
   * (two server backends) at work: bench/RESULTS.md, run 27. The outcome is the same either way.
   */
  wantsRows(): boolean {
    if (!this.overlap || this.options.feedProcessing === false || !this.hungry) return false;
    this.hungry = false;
    return true;
  }

  /** Staging committed a batch: rows for processing, at once rather than at an idle worker's next tick. */
  batchCommitted(): void {
    const news = this.news;
    this.news = newsPromise();
    news.resolve();
  }

  stagingFinished(): void {
    this.stagingDone = true;
    this.batchCommitted();
  }

  /** The processing's result and how long it took, or null when it never started. */
  async result(): Promise<{ result: ProcessResult; ms: number } | null> {
    if (this.running === null) return null;
    const result = await this.running;
    return { result, ms: performance.now() - this.startedAt };
  }

  /** After a failure: stop processing and wait until its current chunks are committed or rolled back. */
  async stop(): Promise<void> {
    this.internal.abort();
    if (this.running !== null) await Promise.allSettled([this.running]);
  }
}
