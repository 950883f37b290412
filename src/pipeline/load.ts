import type { RunCounts } from '../engine/types.js';
import { errorMessage } from '../errors.js';
import { OpenedFile } from '../input/opened-file.js';
import { dirname } from 'node:path';
import { checkFileFolders } from './archive.js';
import { LoadJournal } from './load-journal.js';
import { findRepeatedKeys, type RepeatedKeys } from '../input/repeated-keys.js';
import type { LoadProfile } from '../input/profile/load-profile.js';
import { stageListedFile, type FileStaging } from './load-file.js';
import { holdBeforeProcessing } from './file-holds.js';
import { openChecked } from './open-checked.js';
import type { FileReport, LoadOptions, LoadProcessCounts, LoadReport, ProcessReport, ProcessRunOptions } from './load-options.js';
import type { ListedFile } from '../input/inputs.js';
import { LoadProcessing, maxErrorsMessage, processOptions, stoppedMessage } from './load-processing.js';
import { exitCodeFor } from './outcome.js';
import type { LoadPort, ProcessRunPort } from './ports.js';
import { processBacklog, type ProcessCounts } from './process.js';
import { recordedRun, retried, startRun } from './run-record.js';
import { findStrandedHolds, heldBySets, releaseHeld, RunHoldSet } from './load-holds.js';
import { controlReason, refusedByControl, withoutControlFiles } from './load-control.js';
import { checkFiles, routeByName, stillBeingWritten, type OptionsOf, type SetAside } from './load-checks.js';
import { moveFiles } from './load-moves.js';
import { loadReport, type Processed, type Staged, type StagingEnd } from './load-report.js';
import { earlierPlans, orderBySets, resumesFirst, type SetOrder } from './set-order.js';
import { holdAfterStep } from './test-hold.js';
import { together } from './together.js';

export {
  DEFAULT_LOAD_OPTIONS,
  type DatabaseState,
  type FileReport,
  type LoadOptions,
  type LoadProcessCounts,
  type LoadReport,
  type ProcessReport,
  type ProcessRunOptions,
  type StageOptions,
} from './load-options.js';

/**
 * Stage the files in order. Stops after a file interrupted, or before the file after the one
 * that went past --max-errors (the files not staged are not processed either).
 */
async function stageFiles(
  run: FileStaging,
  optionsOf: OptionsOf,
  paths: string[],
  reports: FileReport[],
  tooManyRejected: () => boolean,
  beingWritten: (path: string) => boolean,
  aside: SetAside,
): Promise<StagingEnd> {
  for (const path of paths) {
    if (run.processing.signal.aborted) return 'interrupted';
    if (tooManyRejected()) return 'max-errors';
    if (beingWritten(path)) continue;
    const options = optionsOf(path);
    // the one opening of the file for its staging: its identity, header and lines are read from
    // it; with a pre-read, it must be the file the pre-read read (its identity), to the same size
    const preRead = (run.held ?? run.settle)?.files.get(path);
    if (refusedByControl(preRead?.control)) {
      options.logger.error({ file: path }, controlReason(preRead.control, null));
      aside.controlRefused.push({ file: path, control: preRead.control, movedTo: null });
      continue;
    }
    const opened = await OpenedFile.open(path, preRead?.seen);
    if (typeof opened === 'string') {
      options.logger.warn({ file: path }, opened);
      aside.notRead.push({ file: path, reason: opened });
      continue;
    }
    try {
      // the signal ends the reading too: a run of blank lines can be long to read and yields no line
      const file = await openChecked(path, options, aside, run.processing.signal, opened);
      if (file === null) continue;
      const staged = await stageListedFile({ ...run, options }, file, opened, preRead?.sha256, preRead?.control);
      reports.push(staged.report);
      if (staged.report.leftInInbox !== undefined) aside.notRead.push({ file: path, reason: staged.report.leftInInbox });
      if (staged.interrupted) return 'interrupted';
    } finally {
      await opened.close();
    }
  }
  return null;
}

/**
 * `load` on PostgreSQL (engine.capabilities.settlesWhileStaging), unless options.settleWhileStaging
 * is false: the rows processing would merge are written DONE and merged by the staging batch that
 * stages them (StageSettle, sql/postgres/migrations/015_settle_while_staging.sql), instead of
 * READY, then DONE by processing (bench/RESULTS.md, runs 24, 25 and 27). The keys on more than one
 * line of the run's files are left to processing (on a server they are the HELD keys, the same
 * pre-read, scanRepeatedKeys): a key is merged only from its last line, as with sequential phases.
 */
function settlesWhileStaging(engine: LoadPort, command: 'load' | 'stage', options: LoadOptions): boolean {
  return (
    command === 'load' &&
    options.settleWhileStaging !== false &&
    // --max-errors stops processing at the row that passes the limit, in line order: a batch
    // cannot know whether a later row of processing's will end ERROR before its own are DONE
    options.maxErrors === undefined &&
    engine.capabilities.settlesWhileStaging === true
  );
}

/** Processing's counts with the rows settled while staging: claimed and DONE by the run, each batch that settled some a chunk. */
function withSettled(counts: ProcessCounts, settled: { rows: number; batches: number }): LoadProcessCounts {
  if (settled.rows === 0) return counts;
  return {
    ...counts,
    chunks: counts.chunks + settled.batches,
    claimed: counts.claimed + settled.rows,
    done: counts.done + settled.rows,
    settled: settled.rows,
  };
}

/**
 * Processing beside staging (`load` on a server database): the keys on more than one line of the
 * run's files, within a file or across them, read before anything is staged (every file from its
 * first line, also one whose staging will resume or be skipped: its rows may be HELD already).
 * Their rows are staged HELD and released when the run's staging ends, so that processing sees
 * each key only once its last line in the run is staged: the outcome of sequential phases.
 */
async function scanRepeatedKeys(
  files: string[],
  options: LoadOptions,
  optionsOf: OptionsOf,
  signal: AbortSignal,
  purpose: 'hold' | 'settle' = 'hold',
): Promise<RepeatedKeys> {
  const started = performance.now();
  const keys = await findRepeatedKeys(files, {
    encoding: options.encoding,
    delimiter: options.delimiter,
    profile: options.profile,
    profileOf: (path: string): LoadProfile | undefined => optionsOf(path).profile,
    signal,
    maxInflate: options.maxInflate,
  });
  options.logger.info(
    { files: files.length, lines: keys.lines, repeatedKeys: keys.count, ms: Math.round(performance.now() - started) },
    purpose === 'settle'
      ? `${keys.count} key(s) on more than one line: held until every file is staged, then left to processing; the others settled while staging`
      : keys.count > 0
        ? `${keys.count} key(s) on more than one line: held from processing until every file is staged`
        : 'no key on more than one line: nothing held from processing',
  );
  return keys;
}

/** Each file's statuses at the end of the run: its load's rows, and its rows held by the load that made them DONE. */
async function tallyFiles(run: FileStaging, reports: FileReport[]): Promise<void> {
  const tallies = await together(
    reports.map((report) => run.db('counting the rows of the load', () => run.engine.tallyLoads([report.loadId]))),
  );
  reports.forEach((report, i) => {
    const tally = tallies[i] ?? {};
    report.tally = report.unchangedDone > 0 ? { ...tally, DONE: (tally.DONE ?? 0) + report.unchangedDone } : tally;
  });
}

/** A file run's counts for its load_run row: the staging counts and the end tally as status_<STATUS>. */
function runCounts(reports: FileReport[]): (runId: number) => RunCounts {
  return (runId) => {
    const report = reports.find((r) => r.runId === runId);
    return { ...(report?.counts ?? {}), ...Object.fromEntries(Object.entries(report?.tally ?? {}).map(([k, v]) => [`status_${k}`, v])) };
  };
}

/** A run's files checked and the run set up, before anything is staged. */
interface LoadSetUp {
  run: FileStaging;
  optionsOf: OptionsOf;
  /** The files whose headers passed, in the command line's order. */
  checked: string[];
  listed: Map<string, ListedFile>;
  aside: SetAside;
  /** Checked again right before a file is read: it may have been listed long before. */
  beingWritten: (path: string) => boolean;
  rejectedWhileStaging: () => number;
  tooManyRejected: () => boolean;
}

/** Each file routed to its profile and its header checked, before anything is written; the run's journal and processing made. */
async function setUpLoad(engine: LoadPort, command: 'load' | 'stage', paths: string[], options: LoadOptions): Promise<LoadSetUp> {
  // what the listing left for the next run was said when it was listed: reported, not said again
  const aside: SetAside = { notRead: [...(options.listing?.notReady ?? [])], unreadable: [], empty: [], unmatched: [], controlRefused: [] };
  // each file's profile by its name (--profiles): before anything is made, read or moved; a
  // control file beside a file is read with it, never as an order file
  const routed = routeByName(withoutControlFiles(paths, options), options, aside);
  const optionsOf = routed.optionsOf;
  checkFileFolders(
    options,
    paths.map((p) => dirname(p)),
  );
  const listed = new Map((options.listed ?? []).map((f) => [f.path, f]));
  const checked = await checkFiles(routed.paths, optionsOf, listed, aside);
  // checked again right before a file is read: it may have been listed long before
  const beingWritten = (path: string) => {
    const reason = stillBeingWritten(path, listed, options);
    if (reason !== null) aside.notRead.push({ file: path, reason });
    return reason !== null;
  };
  const rejected = { files: 0, current: 0 };
  const rejectedWhileStaging = () => rejected.files + rejected.current;
  const tooManyRejected = () => options.maxErrors !== undefined && rejectedWhileStaging() > options.maxErrors;
  const journal = new LoadJournal(engine, command, options);
  // rows of a load this command did not start are an earlier run's (a file resumed or skipped, or no file of this run)
  const processing = new LoadProcessing(engine, command, options, rejectedWhileStaging, (loadId) => journal.started(loadId));
  const run: FileStaging = {
    engine,
    options,
    db: retried(engine, options),
    journal,
    processing,
    held: undefined,
    settled: { rows: 0, batches: 0 },
    rejected,
  };
  return { run, optionsOf, checked, listed, aside, beingWritten, rejectedWhileStaging, tooManyRejected };
}

/**
 * The run's staging: its files ordered (each unfinished set's files in the set's order, what
 * earlier runs began first), read once for their keys, the earlier loads held again, every file
 * staged, and the run's holds released once its staging ended.
 */
async function stageRun(setUp: LoadSetUp, command: 'load' | 'stage', reports: FileReport[]): Promise<Staged> {
  const { run, optionsOf, aside } = setUp;
  const { engine, options, processing } = run;
  const stageStarted = performance.now();
  let blocked = new Map<number, string[]>();
  let staging: StagingEnd;
  let ordered: SetOrder;
  let stageMs: number;
  try {
    // on every engine and for `stage` too: a run killed before its staging ends leaves these
    // rows HELD, so no command run before its rerun (process, retry, another load) merges
    // an earlier line of a key whose later line is in a file not staged yet. --no-overlap on a
    // server keeps its word: nothing is settled (processed) before every file is staged; the
    // held keys are the ones never settled (one pre-read for both)
    ordered = await orderBySets(run, setUp.checked);
    const settles = settlesWhileStaging(engine, command, options) && (processing.overlap || !engine.capabilities.concurrentConnections);
    run.held = await scanRepeatedKeys(ordered.paths, options, optionsOf, processing.signal, settles ? 'settle' : 'hold');
    const earlier = await earlierPlans(run, ordered.paths, optionsOf);
    // what earlier runs began is finished first: load order is the order loads begin
    ordered = await resumesFirst(run, ordered, earlier);
    const files = ordered.paths;
    if (settles) run.settle = run.held;
    // only a run that stages this whole set again may release what it holds
    if (run.held.count > 0) run.holdSet = new RunHoldSet(files);
    await holdBeforeProcessing(run, files, earlier);
    staging = await stageFiles(run, optionsOf, files, reports, setUp.tooManyRejected, setUp.beingWritten, aside);
    if (staging === null) {
      blocked = await releaseHeld(run, reports);
      await holdAfterStep('staging_ended', options.logger);
    }
  } finally {
    processing.stagingFinished();
    stageMs = performance.now() - stageStarted;
  }
  return { staging, ordered, blocked, stageMs };
}

/**
 * After staging: order_stage's statistics refreshed, and for `load` every claimable row processed
 * (of its files and of earlier loads), unless staging was interrupted or stopped by --max-errors.
 */
async function processRun(setUp: LoadSetUp, command: 'load' | 'stage', reports: FileReport[], staged: Staged): Promise<Processed> {
  const { run, rejectedWhileStaging, tooManyRejected } = setUp;
  const { engine, options, processing, journal } = run;
  const { staging } = staged;
  // a freshly staged order_stage has no statistics (autovacuum may be off, or not yet run):
  // the status and tally queries that follow need them
  const refresh = engine.refreshStageStatistics;
  // not once asked to stop: ANALYZE of a million staged rows is seconds of one PGlite statement
  const stopping = staging === 'interrupted' || options.signal?.aborted === true;
  if (!stopping && refresh !== undefined && reports.some((r) => r.counts.inserted + r.counts.updated > 0))
    await run.db('refreshing the statistics of order_stage', () => refresh.call(engine));
  let aborted: string | null = null;
  if (staging === 'interrupted') aborted = 'interrupted while staging: committed batches stay; run the same command again to resume';
  const stoppedByMaxErrors = staging === 'max-errors' || tooManyRejected();
  // `load` processes every claimable row, of its files and of earlier loads (RETRY_WAIT rows
  // now due, READY rows a `stage` left), also when no file of its own was staged
  if (command === 'load' && aborted === null && !stoppedByMaxErrors && !processing.started) {
    const lastRun = journal.lastRunId ?? (await journal.startWithoutFile());
    if (options.onProcessStart !== undefined)
      options.onProcessStart(await run.db('counting claimable rows', () => engine.claimableCount()));
    processing.start(lastRun);
  }
  const result: Processed = { processCounts: null, earlierLoadRows: 0, aborted, processMs: 0 };
  const processed = await processing.result();
  if (processed !== null) {
    result.processMs = processed.ms;
    result.processCounts = withSettled(processed.result.counts, run.settled);
    result.earlierLoadRows = processed.result.earlierLoads;
    result.aborted ??= stoppedMessage(processed.result.stopped, options.maxErrors, result.processCounts.error, rejectedWhileStaging());
    await journal.processed(result.processCounts);
  }
  if (result.aborted === null && stoppedByMaxErrors)
    result.aborted = maxErrorsMessage(options.maxErrors ?? 0, rejectedWhileStaging(), result.processCounts?.error ?? 0);
  return result;
}

/**
 * `load` (stage every file, then process until nothing is claimable) and `stage` (stage only).
 * Every file's header is checked before anything is written. Each file is one load_run; its
 * run_id is the load_id of the rows it stages.
 */
export async function runLoad(engine: LoadPort, command: 'load' | 'stage', paths: string[], options: LoadOptions): Promise<LoadReport> {
  const started = performance.now();
  const setUp = await setUpLoad(engine, command, paths, options);
  const { run, aside, listed } = setUp;
  const reports: FileReport[] = [];
  let staged: Staged | undefined;
  let processed: Processed;
  try {
    staged = await stageRun(setUp, command, reports);
    processed = await processRun(setUp, command, reports, staged);
  } catch (error) {
    await run.processing.stop();
    await run.journal.fail(errorMessage(error), runCounts(reports));
    throw error;
  }
  let aborted = processed.aborted;

  await tallyFiles(run, reports);
  const unreadFile = reports.find((r) => r.stoppedAt !== null);
  // with --failed-dir, a file that cannot be read to its end is moved there and the run goes on
  if (aborted === null && unreadFile?.stoppedAt && options.failedDir === undefined)
    aborted = `${unreadFile.file}: line ${unreadFile.stoppedAt.line}: ${unreadFile.stoppedAt.message}`;
  await run.journal.finish(aborted === null ? 'COMPLETED' : 'FAILED', aborted, runCounts(reports));

  // read together, once the run is finished (a RUNNING run's loads are not stranded), before the files are moved
  const [waiting, stranded, held] = await together([
    // processing took claimable rows of any load: what waits now may be another load's too, and
    // `load` exits 2 while any row waits
    command === 'load' || processed.processCounts !== null || reports.some((r) => (r.tally.RETRY_WAIT ?? 0) > 0)
      ? run.db('reading the rows waiting to retry', () => engine.retryWaitSummary())
      : Promise.resolve(null),
    // rows an earlier load of one of these file names still holds, that no rerun of this file
    // releases, and rows of this run's loads that a set it did not stage whole holds
    run.db('reading the HELD rows of earlier loads', () => findStrandedHolds(engine, reports, options, staged.blocked)),
    // a file an unfinished set still holds stays where it is: under another name, no run could stage that set whole again
    heldBySets(run, reports),
    // everything is committed: what the caller's report reads of the database is read now, as the
    // database may be gone once the files are moved
    options.beforeMoves?.([...new Set(reports.map((r) => r.loadId))]),
  ]);
  const moved = await moveFiles(reports, aside, listed, aborted, options, held);
  const notRead = aside.notRead.map((n) => (listed.get(n.file)?.named === true ? { ...n, commandLine: true as const } : n));
  aborted ??= moved.failure;
  return loadReport(command, options, {
    reports,
    aside,
    notRead,
    staged,
    processed: { ...processed, aborted },
    waiting,
    stranded,
    moved,
    started,
  });
}

/**
 * `process`: claimable rows of any load, until nothing is claimable now. Within `run` (a
 * `retry`'s run, started by the caller) the processing is part of that run: its events go
 * there and it ends that run, with `run.counts` added to its counts.
 */
export async function runProcess(
  engine: ProcessRunPort,
  options: ProcessRunOptions,
  run?: { runId: number; counts?: RunCounts },
): Promise<ProcessReport> {
  const started = performance.now();
  const db = retried(engine, options);
  const record = run === undefined ? await startRun(engine, 'process', {}, options) : recordedRun(engine, run.runId, options);
  if (run === undefined) await record.event('invoked');
  try {
    if (options.onProcessStart !== undefined) options.onProcessStart(await db('counting claimable rows', () => engine.claimableCount()));
    const result = await processBacklog(engine, processOptions(record.runId, options));
    const aborted = stoppedMessage(result.stopped, options.maxErrors, result.counts.error);
    await record.event('processed', { ...result.counts });
    await record.finish(aborted === null ? 'COMPLETED' : 'FAILED', { ...run?.counts, ...result.counts }, aborted);
    // nothing claimable now does not mean nothing left: say what waits, and until when
    const retryWait = await db('reading the rows waiting to retry', () => engine.retryWaitSummary());
    return {
      command: 'process',
      runId: record.runId,
      process: result.counts,
      retryWait,
      elapsedMs: performance.now() - started,
      aborted,
      exitCode: exitCodeFor({ failed: aborted !== null, rowsRejected: result.counts.error + result.counts.retryWait > 0 }),
    };
  } catch (error) {
    await record.fail(error, { ...run?.counts });
    throw error;
  }
}
