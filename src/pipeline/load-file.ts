/** One file of a `load`/`stage`: its run, its staging plan carried out, its report. */
import { basename } from 'node:path';
import { discardedBy } from '../input/profile/discard-hint.js';
import { fileEncoding, openOrderFile, type OrderFile } from '../input/order-file.js';
import { afterLine } from '../input/after-line.js';
import { fileIdentity } from '../input/file-digest.js';
import type { OpenedFile } from '../input/opened-file.js';
import type { RepeatedKeys } from '../input/repeated-keys.js';
import { controlSummary, type ControlOutcome } from '../input/control/control-check.js';
import { BUILTIN_PROFILE_ID } from '../input/profile/builtin.js';
import type { LoadJournal } from './load-journal.js';
import { emptyLoads, foreignHold, type ForeignHold, type RunHoldSet } from './load-holds.js';
import type { FileReport, LoadOptions } from './load-options.js';
import type { LoadProcessing } from './load-processing.js';
import type { LoadPort } from './ports.js';
import type { retried } from './run-record.js';
import { emptyStageCounts, stageFile, type FileStageCounts } from './stage.js';
import { planLoadId, planStaging, resumedAt, type StagingPlan } from './staging-plan.js';
import { claimFile, claimKey } from './file-claim.js';
import type { FileIdentity, HoldSetFile } from '../engine/types.js';
import type { ClaimFence } from '../engine/contract.js';
import type { EarlierPlan } from './set-order.js';
import { loadOrder, restagingSets, type RestagingSet, type RunLoad } from './restaged-sets.js';

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
  /** The loads this run began so far, each with where it stands in load order (restaged-sets.ts, notLaterLoads). */
  runLoads?: RunLoad[] | undefined;
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

/**
 * A file an earlier run staged (skipped) or began (resumed) is part of this run's set: the rows
 * of its load that processing could take (a `recover` may have released them) are held again,
 * and its holds dated now, until this run's staging ends (runLoad releases them with its own).
 * Before this run's processing starts when the file is the run's first. Not the load of a run
 * still RUNNING (`stagedBy`, the run the file's history names): that run releases and processes
 * its rows itself, and held here they were out of its processing while it tallied them (it exited
 * 2, nothing merged); nor could a `recover` have released them (lock_abandoned_holds.sql leaves
 * the loads of RUNNING runs). A killed run is no longer RUNNING once the next command begins
 * (markAbandonedRuns): its load is held again. The running runs are read after the file's
 * history: read before, they missed a run that began and staged the file in between. True: held.
 */
async function holdAgain(run: FileStaging, plan: StagingPlan, stagedBy: number | null): Promise<boolean> {
  if (run.held === undefined || (plan.action !== 'skip' && plan.action !== 'resume')) return false;
  const running = await run.db('reading the running runs', () => run.engine.runningRuns());
  if (running.some((r) => r.runId === stagedBy)) return false;
  const loadId = plan.loadId;
  const held = await run.db('holding the rows of the earlier load', () => run.engine.transaction((tx) => tx.holdLoad(loadId)));
  if (held > 0) run.options.logger.info({ loadId, held }, `${held} row(s) of load ${loadId} held until this run's staging ends`);
  return true;
}

/**
 * Before the run stages: the sets recorded before it are read (what it stages of a set it does not
 * stage whole is held, foreignPlan). And before its first file, the rows that processing could
 * take of the earlier loads this run will skip or resume (a `recover` may have released them) are
 * held again, as holdAgain does when the run reaches each file (a load that a live run stages or
 * processes now is left to it): processing beside staging (a server) starts with the run's first
 * file, and a run stages the files that resume a load before the others (resumesFirst), so it may
 * reach a skipped file of a killed set only after it staged other lines. Read as the run's files
 * were pre-read (their identities: `earlier`); released with the run's own loads.
 */
export async function holdBeforeProcessing(
  run: FileStaging,
  files: readonly string[],
  earlier: ReadonlyMap<string, EarlierPlan>,
): Promise<void> {
  run.foreignSets = await run.db('reading the file sets of earlier runs', () => run.engine.transaction((tx) => tx.allHoldSets()));
  run.emptyLoads = await emptyLoads(run, run.foreignSets);
  run.runNames = files.map((f) => basename(f));
  run.restagedFrom = [];
  run.restaging = restagingSets(run.foreignSets, run.runNames);
  run.runLoads = [];
  if (run.held === undefined) return;
  const early: number[] = [];
  for (const path of files) {
    const found = earlier.get(path);
    if (found === undefined) continue;
    const { plan, stagedBy } = found;
    if ((plan.action === 'skip' || plan.action === 'resume') && (await holdAgain(run, plan, stagedBy))) early.push(plan.loadId);
  }
  run.heldEarly = early;
}

const EVERY_KEY = { has: (): boolean => true };

/** Whether an operator let this load through (`accept`) after its control totals failed. */
async function acceptedLoad(run: FileStaging, loadId: number): Promise<boolean> {
  const hold = await run.db('reading the control hold of the load', () => run.engine.transaction((tx) => tx.controlHold(loadId)));
  return hold?.accepted === true;
}

/**
 * A file whose control totals differ (or cannot be read) with `on_mismatch: hold`: its load is
 * marked before a row of it is staged, in the journal (`control_held`, the load's id in its
 * detail), so that no release of HELD rows takes it (release_held.sql, recover's
 * lock_abandoned_holds.sql: a kill, a rerun and `recover` leave it HELD); only `accept` (its
 * `control_accepted` event) lets it through. Written again by a rerun: the same mark.
 */
async function holdForControl(run: FileStaging, runId: number, loadId: number, control: ControlOutcome): Promise<void> {
  const detail = { loadId, file: control.file, where: control.where, status: control.status, claimed: control.claimed, read: control.read };
  await run.db('recording the control hold', () =>
    run.engine.transaction((tx) => tx.addRunEvent(runId, { event: 'control_held', detail })),
  );
  run.options.logger.warn(
    { runId, loadId, file: control.file },
    `${controlSummary(control)}: load ${loadId} is HELD: nothing of it is merged until \`order-loader accept ${loadId} --reason "…"\``,
  );
}

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

/**
 * What the sets recorded before this run ask of the file (load-holds.ts, foreignHold): a file of
 * a set it stages whole that a part of the set staged out of order is staged again; a file whose
 * load a set it does not stage whole holds (or takes a place that set's run had not begun, or
 * began on a load that committed nothing) has
 * every row held, its load joining that set (and the set marked to be staged again in order).
 */
async function foreignPlan(
  run: FileStaging,
  path: string,
  plan: StagingPlan,
  runId: number,
): Promise<{ plan: StagingPlan; hold: ForeignHold }> {
  const sets = run.foreignSets ?? [];
  const names = run.runNames ?? [];
  const first = foreignHold(sets, names, path, planLoadId(plan, runId), { stagedWhole: plan.action === 'skip', emptied: run.emptyLoads });
  const restaged: StagingPlan =
    first.restage && (plan.action === 'skip' || plan.action === 'resume') ? { action: 'fresh', reason: 'restage' } : plan;
  const hold = restaged === plan ? first : foreignHold(sets, names, path, runId);
  if (hold.join.length > 0) {
    const loadId = planLoadId(restaged, runId);
    await run.db("joining the file's load to a killed run's file set", () =>
      run.engine.transaction(async (tx) => {
        for (const place of hold.join) {
          await tx.joinHoldSet(place.setId, place.fileNo, loadId);
          await tx.restageHoldSet(place.setId);
        }
      }),
    );
  }
  if (restaged !== plan && plan.action !== 'fresh' && plan.loadId !== null) run.restagedFrom?.push(plan.loadId);
  if (restaged !== plan)
    run.options.logger.info(
      { runId, file: path },
      `${path}: staged again as a new load: a run of part of its file set staged a later file of the set before it`,
    );
  if (hold.wholeHold)
    run.options.logger.warn(
      { runId, file: path },
      `${path}: every row held from processing: an earlier run of this file with other files (stopped, or still staging) has not staged them all, and this run does not stage all of them`,
    );
  return { plan: restaged, hold };
}

/** The file whose identity this run claimed: skip, stop, resume or stage it as its history says. */
async function stageClaimed(
  run: FileStaging,
  listed: OrderFile,
  opened: OpenedFile,
  claimed: FileIdentity & {
    encoding: string;
    delimiter: string;
    profile: string;
    fence: ClaimFence | null;
    retake: () => Promise<ClaimFence | null>;
  },
  control: ControlOutcome | undefined,
): Promise<{ report: FileReport; interrupted: boolean }> {
  const { engine, options } = run;
  const logger = options.logger;
  const profile = options.profile;
  const { fence, retake, ...identity } = claimed;
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
  const yieldTo = loadOrder(run, listed.path, planned, plan, loadId);
  await fileRun.invoked(listed, sha, loadId, { ...readAs, restage: options.restage, profile });
  const failed = control !== undefined && control.status !== 'ok' && control.onMismatch === 'hold';
  // a load an operator accepted (a rerun that skips or resumes it) is not held again
  const accepted = failed && plan.action !== 'fresh' && (await acceptedLoad(run, loadId));
  const controlHeld = failed && !accepted;
  if (controlHeld) await holdForControl(run, runId, loadId, control);
  const controlReport =
    control === undefined
      ? {}
      : { control, ...(controlHeld ? { controlHeld: true as const } : accepted ? { controlAccepted: true as const } : {}) };

  if (plan.action === 'skip' || plan.action === 'stop') {
    listed.close();
    const message =
      plan.action === 'skip'
        ? `${listed.path}: already staged by load ${loadId} (same sha256, encoding${profile === undefined ? ' and delimiter' : ', delimiter and profile'}): staging skipped (--restage stages it again)`
        : `${listed.path}: load ${loadId} could not read this file past line ${plan.stoppedAt.line}: not read again (fix the file and load it)`;
    if (plan.action === 'skip') logger.info({ runId, loadId, file: listed.path }, message);
    else logger.warn({ runId, loadId, file: listed.path, line: plan.stoppedAt.line }, message);
    await fileRun.notRead(plan, loadId);
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

  let file = listed;
  if (plan.action === 'resume') {
    listed.close();
    const from = plan.from;
    file = await openOrderFile(listed.path, {
      encoding: options.encoding,
      delimiter: options.delimiter,
      profile,
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
  }
  logger.info({ runId, loadId, file: file.path, size: file.size }, 'staging');
  const result = await stageFile(engine, runId, file, {
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
    logger,
    signal: run.processing.signal,
    initialCounts: plan.action === 'resume' ? (plan.counts ?? undefined) : undefined,
    yieldToLaterLoads: yieldTo,
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
      run.rejected.current = counts.rejected;
      options.onStageProgress?.(file.path, file.bytesRead(), file.size, counts.read);
    },
  });
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
