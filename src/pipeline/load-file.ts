/** One file of a `load`/`stage`: its run, its staging plan carried out, its report. */
import { discardedBy } from '../input/profile/discard-hint.js';
import { fileEncoding, openOrderFile, type OrderFile } from '../input/order-file.js';
import { afterLine } from '../input/after-line.js';
import { fileIdentity } from '../input/file-digest.js';
import type { OpenedFile } from '../input/opened-file.js';
import type { RepeatedKeys } from '../input/repeated-keys.js';
import type { ControlOutcome } from '../input/control/control-check.js';
import { BUILTIN_PROFILE_ID } from '../input/profile/builtin.js';
import type { FileRun, LoadJournal } from './load-journal.js';
import type { ForeignHold, RunHoldSet } from './load-holds.js';
import type { FileReport, LoadOptions } from './load-options.js';
import type { LoadProcessing } from './load-processing.js';
import type { LoadPort } from './ports.js';
import type { retried } from './run-record.js';
import { emptyStageCounts, stageFile, type FileStageCounts, type StageFileOptions } from './stage.js';
import { planLoadId, planStaging, resumedAt, type StagingPlan } from './staging-plan.js';
import { claimFile, claimKey } from './file-claim.js';
import type { FileIdentity, HoldSetFile, LoadPlace, StagingHistory } from '../engine/types.js';
import type { ClaimFence } from '../engine/contract.js';
import type { RestagingSet } from './restaged-sets.js';
import { loadOrder } from './load-places.js';
import type { YieldTo } from './stage-batch.js';
import { acceptedLoad, foreignPlan, holdAgain, holdForControl } from './file-holds.js';

/** What staging one file needs of the run it is part of. */
export interface FileStaging {
  engine: LoadPort;
  options: LoadOptions;
  db: ReturnType<typeof retried>;
  journal: LoadJournal;
  processing: LoadProcessing;
  /**
   * The keys on more than one line of the run's files, whose rows are staged HELD on every engine
   * (src/input/repeated-keys.ts); released by runLoad when the run's staging ends.
   */
  held?: RepeatedKeys | undefined;
  /**
   * Settling while staging (`load` on PGlite): the keys on more than one line of the run's files,
   * whose rows are never settled (StageFileOptions.settle); undefined: no row is settled.
   */
  settle?: RepeatedKeys | undefined;
  /** The run's file set, when its files repeat keys: it holds each file's load as the file's run starts (load-holds.ts). */
  holdSet?: RunHoldSet | undefined;
  /** The sets recorded before this run (killed runs', runs still staging), read before it staged (load-holds.ts, foreignHold). */
  foreignSets?: HoldSetFile[] | undefined;
  /** The loads of those sets that committed nothing (load-holds.ts, emptyLoads): their places are taken as not begun. */
  emptyLoads?: ReadonlySet<number> | undefined;
  /** The base names of the run's files, in order. */
  runNames?: string[] | undefined;
  /** The loads this run held again before its processing began (holdBeforeProcessing): released with its own. */
  heldEarly?: number[] | undefined;
  /** The earlier loads of files this run staged again as new loads (foreignPlan): released with its own. */
  restagedFrom?: number[] | undefined;
  /** The sets recorded before this run that it stages again whole (restaged-sets.ts). */
  restaging?: RestagingSet[] | undefined;
  /** The places in load order this run recorded (load-places.ts): all it knows of them where the engine records none. */
  places?: LoadPlace[] | undefined;
  /** How many files of each name this run staged again of each set (`setId:name`): the next one's place in the set. */
  restagedNames?: Map<string, number> | undefined;
  /** The loads this run staged whole or skipped (staged whole before): known without reading the database whether a part carries a set on in its order (load-places.ts). */
  stagedLoads?: number[] | undefined;
  /** Rows the run's staging wrote DONE and merged (settle): part of what it processed. An object: each file's FileStaging is a copy of the run's. */
  settled: { rows: number; batches: number };
  /** Lines rejected while staging: by the files staged so far, and by the file being staged. */
  rejected: { files: number; current: number };
}

/**
 * The file at the path, once this run read its first `file.size` bytes (taken once, when it was
 * first read): grown since (lines appended while it was loaded, never read by this run: they
 * were in neither its identity nor its pre-read of repeated keys), or replaced by another file.
 * Either is left in the inbox for the next run, which reads the whole file as it is then. Null:
 * the path holds what was loaded.
 */
async function leftForNextRun(run: FileStaging, opened: OpenedFile, runId: number, loadId: number): Promise<string | null> {
  const after = await opened.afterReading();
  if (after === null) return null;
  const path = opened.path;
  const reason =
    after.kind === 'grown'
      ? `${path}: loaded its first ${opened.size} bytes; run again for the rest (the file grew to ${after.size} bytes while it was loaded)`
      : `${path}: replaced by another file while it was loaded (the file loaded is load ${loadId}): run again to load the new one`;
  run.options.logger.warn({ runId, loadId, file: path, loadedBytes: opened.size, ...after }, reason);
  return reason;
}

/**
 * A staged row moves to this load unless it is identical to a row already DONE (that one is
 * left untouched, with the load that made it DONE): the file's rows not on its load. Only
 * unchanged rows that were not ERROR can be such rows: none, no query.
 */
async function heldElsewhere(run: FileStaging, counts: FileStageCounts, loadId: number): Promise<number> {
  const candidates = counts.unchanged - counts.unchangedError;
  if (candidates <= 0) return 0;
  const onLoad = Object.values(await run.db('counting the rows of the load', () => run.engine.tallyLoads([loadId]))).reduce(
    (n, c) => n + c,
    0,
  );
  return Math.min(candidates, Math.max(0, counts.inserted + counts.updated + counts.unchanged - onLoad));
}

const EVERY_KEY = { has: (): boolean => true };

/** The report's `profile` of a file read through one (nothing for the built-in format). */
function profileOf(options: LoadOptions): { profile?: { name: string; sha256: string } } {
  return options.profile === undefined ? {} : { profile: { name: options.profile.name, sha256: options.profile.sha256 } };
}

/** One file of a `load`/`stage`: its run, then skip, stop, resume or stage it as its staging plan says. */
export async function stageListedFile(
  run: FileStaging,
  listed: OrderFile,
  opened: OpenedFile,
  /** The file's identity when the pre-read of repeated keys read it (from the same descriptor's bytes). */
  preRead?: string,
  /** Its control totals (a profile's `control:`) as the pre-read checked them on the whole file. */
  control?: ControlOutcome,
): Promise<{ report: FileReport; interrupted: boolean }> {
  const options = run.options;
  // the identity of the bytes staging reads: the same descriptor, to the same size
  const sha = preRead ?? (await fileIdentity(opened, null, run.processing.signal, options.maxInflate));
  const identity = { sha256: sha, ...(await readAsOf(opened, options)) };
  // the file's identity is this run's from before its history is read until its staging ended
  let claim = await claimFile({ ...run, signal: run.processing.signal }, identity, listed.path);
  // the claim's session ended (a terminated backend, a server restart): try once to take it
  // again, without waiting (another run that has it now may be staging the file)
  const retake = async (): Promise<ClaimFence | null> => {
    const next = await run.engine.claimFile(claimKey(identity));
    if (next === null) return null;
    const lost = claim;
    claim = next;
    await lost.release();
    return next.fence;
  };
  try {
    return await stageClaimed(run, listed, opened, { ...identity, fence: claim.fence, retake }, control);
  } finally {
    await claim.release();
  }
}

/**
 * How the file is read, part of its identity: the encoding it is decoded with (a UTF-16 BOM
 * decides), the delimiter, and the profile that maps it (its content's hash).
 */
export async function readAsOf(
  file: string | OpenedFile,
  options: Pick<LoadOptions, 'profile' | 'encoding' | 'delimiter'>,
): Promise<{ encoding: string; delimiter: string; profile: string }> {
  const profile = options.profile;
  return {
    encoding: await fileEncoding(file, profile?.spec.encoding ?? options.encoding),
    delimiter: profile === undefined ? options.delimiter : (profile.spec.delimiter ?? ','),
    profile: profile?.sha256 ?? BUILTIN_PROFILE_ID,
  };
}

/** The identity this run claimed (how it reads the file included), and how it takes the claim again once its session ended. */
type Claimed = FileIdentity & {
  encoding: string;
  delimiter: string;
  profile: string;
  fence: ClaimFence | null;
  retake: () => Promise<ClaimFence | null>;
};

/** The file's identity and how it is read, without the claim. */
function identityOf({ sha256, encoding, delimiter, profile }: Claimed): Omit<Claimed, 'fence' | 'retake'> {
  return { sha256, encoding, delimiter, profile };
}

/** The report's control outcome: the file's control totals, and whether its load is held for them or was accepted. */
function controlReportOf(
  control: ControlOutcome | undefined,
  controlHeld: boolean,
  accepted: boolean,
): { control?: ControlOutcome; controlHeld?: true; controlAccepted?: true } {
  return control === undefined
    ? {}
    : { control, ...(controlHeld ? { controlHeld: true as const } : accepted ? { controlAccepted: true as const } : {}) };
}

/** A claimed file's run, begun: what its history and the sets recorded before the run made of it. */
interface FileStart {
  history: StagingHistory | null;
  plan: StagingPlan;
  foreign: ForeignHold;
  fileRun: FileRun;
  runId: number;
  loadId: number;
  yieldTo: YieldTo | undefined;
  controlHeld: boolean;
  controlReport: ReturnType<typeof controlReportOf>;
}

/**
 * The claimed file's run started: its plan as its history and the sets recorded before the run
 * say, its load joined to the run's set before any of its rows is held, its earlier load held
 * again, its place in load order, and its control hold.
 */
async function startClaimed(
  run: FileStaging,
  listed: OrderFile,
  identity: Omit<Claimed, 'fence' | 'retake'>,
  control: ControlOutcome | undefined,
): Promise<FileStart> {
  const { engine, options } = run;
  const { sha256: sha, ...readAs } = identity;
  const history = await run.db('reading the staging history', () => engine.stagingHistory(identity));
  const planned = planStaging(history, {
    ...readAs,
    restage: options.restage,
  });
  const fileRun = await run.journal.startFile(listed, sha);
  const runId = fileRun.runId;
  const { plan, hold: foreign } = await foreignPlan(run, listed.path, planned, runId);
  // the run's file set holds the file's load before the run holds any of its rows
  await run.holdSet?.joined(run, listed.path, runId, planLoadId(plan, runId));
  await holdAgain(run, plan, history?.runId ?? null);
  if (run.processing.overlap) run.processing.start(runId);
  const loadId = planLoadId(plan, runId);
  const yieldTo = await loadOrder(run, listed.path, planned, plan, loadId);
  await fileRun.invoked(listed, sha, loadId, { ...readAs, restage: options.restage, profile: options.profile });
  const failed = control !== undefined && control.status !== 'ok' && control.onMismatch === 'hold';
  // a load an operator accepted (a rerun that skips or resumes it) is not held again
  const accepted = failed && plan.action !== 'fresh' && (await acceptedLoad(run, loadId));
  const controlHeld = failed && !accepted;
  if (controlHeld) await holdForControl(run, runId, loadId, control);
  const controlReport = controlReportOf(control, controlHeld, accepted);
  return { history, plan, foreign, fileRun, runId, loadId, yieldTo, controlHeld, controlReport };
}

/** A file its plan skips (staged already) or stops (an earlier load could not read it past a line): not read, reported. */
async function notStaged(
  run: FileStaging,
  listed: OrderFile,
  opened: OpenedFile,
  start: FileStart & { plan: Extract<StagingPlan, { action: 'skip' | 'stop' }> },
): Promise<{ report: FileReport; interrupted: boolean }> {
  const { options } = run;
  const logger = options.logger;
  const profile = options.profile;
  const { plan, runId, loadId, fileRun, controlReport } = start;
  listed.close();
  const message =
    plan.action === 'skip'
      ? `${listed.path}: already staged by load ${loadId} (same sha256, encoding${profile === undefined ? ' and delimiter' : ', delimiter and profile'}): staging skipped (--restage stages it again)`
      : `${listed.path}: load ${loadId} could not read this file past line ${plan.stoppedAt.line}: not read again (fix the file and load it)`;
  if (plan.action === 'skip') logger.info({ runId, loadId, file: listed.path }, message);
  else logger.warn({ runId, loadId, file: listed.path, line: plan.stoppedAt.line }, message);
  await fileRun.notRead(plan, loadId);
  if (plan.action === 'skip') run.stagedLoads?.push(loadId);
  const rejected = plan.committed?.rejected ?? 0;
  const left = await leftForNextRun(run, opened, runId, loadId);
  const report: FileReport = {
    file: listed.path,
    loadId,
    runId,
    counts: { ...emptyStageCounts(), rejected },
    tally: {},
    unchangedDone: plan.committed === null ? 0 : await heldElsewhere(run, plan.committed, loadId),
    stoppedAt: plan.action === 'stop' ? plan.stoppedAt : null,
    skipped: message,
    resumedAt: null,
    ...profileOf(options),
    ...controlReport,
    ...(left === null ? {} : { leftInInbox: left }),
  };
  run.rejected.files += rejected;
  return { report, interrupted: false };
}

/** A file whose plan resumes its load: opened again after the load's last committed batch. */
async function openResumed(
  run: FileStaging,
  listed: OrderFile,
  opened: OpenedFile,
  start: FileStart & { plan: Extract<StagingPlan, { action: 'resume' }> },
): Promise<OrderFile> {
  const { options } = run;
  const logger = options.logger;
  const { plan, runId, loadId, fileRun } = start;
  listed.close();
  const from = plan.from;
  let file = await openOrderFile(listed.path, {
    encoding: options.encoding,
    delimiter: options.delimiter,
    profile: options.profile,
    onWarning: (message) => logger.warn({ runId, loadId, file: listed.path }, message),
    // without byte offsets: from the first line, the lines committed passed over (afterLine)
    resumeAt: from.byte === null ? undefined : { line: from.line, byte: from.byte },
    signal: run.processing.signal,
    read: { file: opened, maxInflate: options.maxInflate },
  });
  if (from.byte === null) file = afterLine(file, from.line);
  logger.info(
    { runId, loadId, file: file.path, line: plan.from.line, byte: plan.from.byte },
    `${file.path}: resuming load ${loadId} after line ${plan.from.line}`,
  );
  await fileRun.resumed(loadId, plan.from);
  return file;
}

/** How the file's lines are staged: its holds, what it settles, its claim, its place in load order, its progress. */
function stagingOptions(run: FileStaging, file: OrderFile, start: FileStart, claimed: Claimed): StageFileOptions {
  const { engine, options } = run;
  const { plan, runId, loadId, history, controlHeld, foreign } = start;
  const { fence, retake, ...identity } = claimed;
  return {
    loadId,
    // a file whose control totals differ, or of a killed run's set that this run does not stage
    // whole: every row staged HELD, none settled (nothing of it is merged)
    held: controlHeld || foreign.wholeHold ? EVERY_KEY : run.held,
    settle:
      run.settle === undefined || controlHeld || foreign.wholeHold
        ? undefined
        : { except: run.settle, skip: () => run.processing.wantsRows() },
    batchSize: options.batchSize,
    // a batch commits only while the claim is this run's
    claim: fence,
    // taken again only while the file's last checkpoint is still the one this run knows
    reclaim: async (lastLine) => {
      const again = await retake();
      if (again === null) return null;
      const now = await engine.stagingHistory(identity);
      const known = lastLine === null ? history?.checkpoint?.line : lastLine;
      const runOf = lastLine === null ? history?.runId : runId;
      return now?.runId === runOf && now?.checkpoint?.line === known && now?.staged !== true ? again : null;
    },
    // a profile's file: its columns are the profile's, not the header's split by the delimiter,
    // so a rejected line's key is not told (it stays listed by `errors`)
    delimiter: options.profile === undefined ? options.delimiter : undefined,
    retry: options.retry,
    lockWaitMs: options.lockWaitMs,
    logger: options.logger,
    signal: run.processing.signal,
    initialCounts: plan.action === 'resume' ? (plan.counts ?? undefined) : undefined,
    yieldToLaterLoads: start.yieldTo,
    // this run's last checkpoint, once it committed one (it is then the latest run of the file
    // that committed any); before that, the history is an earlier run's, not this run's
    committedCheckpoint: async () => {
      const history = await engine.stagingHistory(identity);
      return history !== null && history.runId === runId ? history.checkpoint : null;
    },
    // counted before the batch commits: a chunk claimed beside staging sees the rejected lines
    // of every batch whose rows it can see
    onBatchCounted: (counts) => {
      run.rejected.current = counts.rejected;
    },
    onBatch: (counts) => {
      run.processing.batchCommitted();
      run.rejected.current = counts.rejected;
      options.onStageProgress?.(file.path, file.bytesRead(), file.size, counts.read);
    },
  };
}

/** The file whose identity this run claimed: skip, stop, resume or stage it as its history says. */
async function stageClaimed(
  run: FileStaging,
  listed: OrderFile,
  opened: OpenedFile,
  claimed: Claimed,
  control: ControlOutcome | undefined,
): Promise<{ report: FileReport; interrupted: boolean }> {
  const { engine, options } = run;
  const logger = options.logger;
  const profile = options.profile;
  const start = await startClaimed(run, listed, identityOf(claimed), control);
  const { plan, runId, loadId, fileRun, controlReport } = start;

  if (plan.action === 'skip' || plan.action === 'stop') return notStaged(run, listed, opened, { ...start, plan });

  const file = plan.action === 'resume' ? await openResumed(run, listed, opened, { ...start, plan }) : listed;
  logger.info({ runId, loadId, file: file.path, size: file.size }, 'staging');
  const result = await stageFile(engine, runId, file, stagingOptions(run, file, start, claimed));
  run.rejected.files += result.counts.rejected;
  run.rejected.current = 0;
  run.settled.rows += result.settled.rows;
  run.settled.batches += result.settled.batches;
  if (profile !== undefined && result.discarded > 0 && result.counts.read === 0)
    logger.warn(
      { runId, loadId, file: file.path, discarded: result.discarded },
      `${file.path}: profile ${profile.name} discarded every line (${result.discarded}): nothing was loaded from it (${discardedBy(profile, result.discarded, file.discardedByWhen?.() ?? 0)})`,
    );
  await fileRun.staged(loadId, result);
  if (!result.interrupted && result.stoppedAt === null) run.stagedLoads?.push(loadId);
  logger.info({ runId, loadId, ...result.counts }, 'staged');
  const left = result.interrupted ? null : await leftForNextRun(run, opened, runId, loadId);
  // right after staging, before a later file of this run can take rows over
  const unchangedDone = await heldElsewhere(run, result.counts, loadId);
  return {
    report: {
      file: file.path,
      loadId,
      runId,
      counts: result.counts,
      tally: {},
      unchangedDone,
      stoppedAt: result.stoppedAt,
      skipped: null,
      resumedAt: resumedAt(plan),
      ...profileOf(options),
      ...controlReport,
      ...(profile === undefined ? {} : { discarded: result.discarded, discardedByWhen: file.discardedByWhen?.() ?? 0 }),
      ...(left === null ? {} : { leftInInbox: left }),
    },
    interrupted: result.interrupted,
  };
}
