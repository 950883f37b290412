/**
 * The end of a run's holds (src/pipeline/load.ts): released when its staging ends, and the HELD
 * rows that this run may not release or that no rerun will. A load killed while it staged a set
 * of files holds the rows of keys its files repeat until a run that stages that whole set again
 * (skipping or resuming its loads) ends its staging. The set is recorded before the run's first
 * hold (RunHoldSet, table load_hold_set): the base names of its files, and the loads it holds. A
 * file of the set is known by its base name, wherever the rerun reads it from: a corrected resend
 * under the same name still completes the set. A run that stages only part of the set (`load
 * a.csv` after a killed `load inbox/`) releases nothing the set holds, and says so. A rerun whose
 * file is not the same any more (a corrected resend, another profile, encoding or delimiter:
 * another identity) is a new load, and the earlier load's rows that the new file did not stage
 * again stay HELD. A run says either: report, exit code 2, metrics.
 */
import { basename } from 'node:path';
import type { Reports } from '../engine/contract.js';
import type { HoldSetFile } from '../engine/types.js';
import { acceptAdvice } from './control-held-rows.js';
import type { FileStaging } from './load-file.js';
import type { FileReport, LoadOptions, StrandedHold } from './load-options.js';

/**
 * The file set of a run whose files repeat keys (the files it stages, in order), recorded in the
 * database when its first file's run starts and joined by each file's load as its run starts:
 * before that file's first hold, so that every HELD row of the run's loads is held by a set.
 */
export class RunHoldSet {
  private recorded: number | null = null;

  constructor(private readonly paths: readonly string[]) {}

  /** The set's id once recorded (the run_id of its first file's run). */
  get id(): number | null {
    return this.recorded;
  }

  /** The base names of the set's files, in order. */
  get names(): string[] {
    return this.paths.map((p) => basename(p));
  }

  /** The file at `path` starts its run (`runId`) on load `loadId`: the set holds that load from now on. */
  async joined(run: Pick<FileStaging, 'engine' | 'db'>, path: string, runId: number, loadId: number): Promise<void> {
    // the path as listed; a reader that spelled it otherwise still names the same base name
    const found = this.paths.indexOf(path);
    const fileNo = found >= 0 ? found : this.names.indexOf(basename(path));
    if (fileNo < 0) throw new Error(`${path} is not a file of the run's set`);
    const setId = this.recorded;
    if (setId === null) {
      const names = this.names;
      await run.db("recording the run's file set", () =>
        run.engine.transaction((tx) => tx.recordHoldSet(runId, names, { fileNo, loadId })),
      );
      this.recorded = runId;
    } else {
      await run.db("adding the file's load to the run's file set", () =>
        run.engine.transaction((tx) => tx.joinHoldSet(setId, fileNo, loadId)),
      );
    }
  }
}

/** How many files of each base name (two folders may each give the set an a.csv). */
export function nameCounts(names: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
}

/** The release rule's answer: the loads to release, the others with the files of their sets not staged, the sets staged whole. */
export interface ReleaseDecision {
  release: number[];
  /** Load → the base names of the files of the sets holding it that the run did not stage. */
  blocked: Map<number, string[]>;
  /** The sets whose every file the run staged: their staging ended, nothing waits on them. */
  covered: number[];
}

/** The files of each set, by set id, in place order. */
export function bySet(sets: readonly HoldSetFile[]): Map<number, HoldSetFile[]> {
  const found = new Map<number, HoldSetFile[]>();
  for (const f of sets) found.set(f.setId, [...(found.get(f.setId) ?? []), f]);
  return found;
}

/** The base names of a set's files that `staged` does not hold (as many of each name as the set has). */
export function missingNames(files: readonly HoldSetFile[], staged: ReadonlyMap<string, number>): string[] {
  return [...nameCounts(files.map((f) => f.fileName))].filter(([name, n]) => (staged.get(name) ?? 0) < n).map(([name]) => name);
}

/**
 * The release rule, pure: a run whose staging ended releases a load of its own only if it staged
 * every file of every set that holds the load (by base name, as many of each name as the set
 * has), its own set included (a file of it left for the next run keeps the set's holds).
 */
export function decideRelease(loadIds: readonly number[], sets: readonly HoldSetFile[], staged: readonly string[]): ReleaseDecision {
  const covered = nameCounts(staged);
  const blocked = new Map<number, string[]>();
  const whole: number[] = [];
  for (const [setId, files] of bySet(sets)) {
    const missing = missingNames(files, covered);
    if (missing.length === 0) {
      whole.push(setId);
      continue;
    }
    const loads = new Set(files.map((f) => f.loadId));
    for (const loadId of loadIds) {
      if (!loads.has(loadId)) continue;
      blocked.set(loadId, [...new Set([...(blocked.get(loadId) ?? []), ...missing])]);
    }
  }
  return { release: [...new Set(loadIds)].filter((id) => !blocked.has(id)), blocked, covered: whole };
}

/** What the sets recorded before this run ask of one of its files (foreignHold). */
export interface ForeignHold {
  /**
   * A set this run does not stage whole holds the file's load, or has the file's name among the
   * files its own run had not begun: every row the file stages is HELD (none settled) until a
   * run that stages that set whole ends its staging.
   */
  wholeHold: boolean;
  /** The places of such sets, not begun by their run, that the file's load takes. */
  join: Array<{ setId: number; fileNo: number }>;
  /**
   * The file is of a set this run stages whole, that a run of part of it staged out of order
   * (HoldSetFile.restage): staged again as a new load, so that the set's lines are in order.
   */
  restage: boolean;
}

/** What else decides what the sets recorded before a run ask of one of its files (foreignHold). */
export interface ForeignContext {
  /**
   * The file was staged whole before (skipped): it takes no place a set's run had not begun. Its
   * lines are in already, and a set whose run was killed before its first batch (its first load has
   * no row, and no run completes it) would otherwise take the file by name and keep it from the archive.
   */
  stagedWhole?: boolean;
  /**
   * The loads of those sets that committed no staging fact (their run killed before its first
   * batch, or not there yet; emptyLoads): the place of such a load is taken as one the set's run had
   * not begun. Else a part of the set (`load a.csv` after a killed `load inbox/`) stages a.csv as a
   * new load, neither held nor joined, and merges lines the set's later files may override.
   */
  emptied?: ReadonlySet<number>;
}

/**
 * A run reads the sets recorded before it (killed runs' sets, and those of runs still staging)
 * before it stages; for each of its files, pure: what those sets ask (ForeignHold). `runNames`:
 * the base names of the run's files; `loadId`: the load the file's rows go to.
 */
export function foreignHold(
  sets: readonly HoldSetFile[],
  runNames: readonly string[],
  path: string,
  loadId: number,
  context: ForeignContext = {},
): ForeignHold {
  const { stagedWhole = false, emptied = new Set<number>() } = context;
  const name = basename(path);
  const runs = nameCounts(runNames);
  const hold: ForeignHold = { wholeHold: false, join: [], restage: false };
  for (const [setId, files] of bySet(sets)) {
    if (!files.some((f) => f.fileName === name || f.loadId === loadId)) continue;
    if (missingNames(files, runs).length === 0) {
      hold.restage ||= files.some((f) => f.restage) && files.some((f) => f.fileName === name);
      continue;
    }
    // a set that holds no load any more (given up by `recover`) holds nothing
    if (files.every((f) => f.loadId === null)) continue;
    if (files.some((f) => f.loadId === loadId)) {
      hold.wholeHold = true;
      continue;
    }
    // the place of a file the set's run had not begun, or began on a load that committed nothing
    // (killed before its first batch): this run's new load is that file's load of the set now
    const place = files.find((f) => f.fileName === name && (f.loadId === null || emptied.has(f.loadId)));
    if (place === undefined || stagedWhole) continue;
    hold.wholeHold = true;
    hold.join.push({ setId, fileNo: place.fileNo });
  }
  return hold;
}

/** The loads the sets hold that committed no staging fact: their run has no 'staged' or 'staged_checkpoint' event. */
export async function emptyLoads(run: Pick<FileStaging, 'engine' | 'db'>, sets: readonly HoldSetFile[]): Promise<Set<number>> {
  const loadIds = [...new Set(sets.flatMap((f) => (f.loadId === null ? [] : [f.loadId])))];
  if (loadIds.length === 0) return new Set();
  // a load's checkpoints are its own run's until one committed: a resumed run continues a checkpoint
  const events = await run.db("reading the staging events of the file sets' loads", () => run.engine.listRunEvents(loadIds));
  const committed = new Set(events.filter((e) => e.event === 'staged' || e.event === 'staged_checkpoint').map((e) => e.runId));
  return new Set(loadIds.filter((id) => !committed.has(id)));
}

/**
 * The sets nothing waits on once a run's staging ended: staged whole by it (its own, or one
 * recorded before it) and each of their loads released by it (or given up). A set staged whole
 * that still holds a load the run did not release (a file of it came back changed: a new load)
 * keeps holding that load. `sets`: the sets as read (a set read twice is the later reading).
 */
export function finishedSets(sets: readonly HoldSetFile[], staged: readonly string[], released: readonly number[]): number[] {
  const latest = new Map(sets.map((f) => [`${f.setId}:${f.fileNo}`, f]));
  const covered = nameCounts(staged);
  const done = new Set(released);
  return [...bySet([...latest.values()])]
    .filter(([, files]) => missingNames(files, covered).length === 0 && files.every((f) => f.loadId === null || done.has(f.loadId)))
    .map(([setId]) => setId);
}

/**
 * The run's staging ended (every file's last line is in, or the file cannot be read past a
 * line): the HELD rows of its loads are released, whoever held them (this run, or a killed run
 * that this one resumed or skipped), unless a set that holds the load has a file this run did not
 * stage; those loads are returned with the files missing. One transaction: the sets are read,
 * the rows released on a partial index that holds only HELD rows, and the sets that wait on
 * nothing any more forgotten. A run interrupted or stopped by --max-errors leaves them HELD: its
 * rerun (which resumes or skips those loads) releases them, or `recover --older-than` once they are older.
 */
export async function releaseHeld(run: FileStaging, reports: FileReport[]): Promise<Map<number, string[]>> {
  const staged = reports.map((r) => basename(r.file));
  // with its own: the loads it held before processing began, and those it staged again as new loads
  const loadIds = [...new Set([...reports.map((r) => r.loadId), ...(run.heldEarly ?? []), ...(run.restagedFrom ?? [])])];
  if (loadIds.length === 0) return new Map();
  const { released, decision } = await run.db('releasing the held rows of the run', () =>
    run.engine.transaction(async (tx) => {
      const sets = await tx.holdSets(loadIds);
      const decision = decideRelease(loadIds, sets, staged);
      const released = await tx.releaseHeld(decision.release);
      await tx.endHoldSets(decision.release, finishedSets([...(run.foreignSets ?? []), ...sets], staged, decision.release));
      return { released, decision };
    }),
  );
  if (released > 0) run.options.logger.info({ loadIds: decision.release, released }, `${released} held row(s) released to processing`);
  return decision.blocked;
}

/**
 * Once the run's staging and its release are over: its loads that a set it did not stage whole
 * still holds (load → that set's files it did not stage), also when its staging did not end
 * (interrupted: its own set is one). Such a file must stay where it is (load-moves.ts): moved
 * under another name, no run could stage that set whole again and its rows would stay HELD.
 */
export async function heldBySets(run: Pick<FileStaging, 'engine' | 'db'>, reports: readonly FileReport[]): Promise<Map<number, string[]>> {
  const loadIds = [...new Set(reports.map((r) => r.loadId))];
  if (loadIds.length === 0) return new Map();
  const sets = await run.db("reading the file sets that hold the run's loads", () => run.engine.transaction((tx) => tx.holdSets(loadIds)));
  return decideRelease(
    loadIds,
    sets,
    reports.map((r) => basename(r.file)),
  ).blocked;
}

/** Why a file of an unfinished set is left where it is, not archived or moved to --failed-dir. */
export function keptForSetMessage(
  file: string,
  loadId: number,
  missing: readonly string[],
  move: 'archived' | 'moved to --failed-dir',
): string {
  return `${file}: left where it is, not ${move}: load ${loadId} is held by the file set of a run stopped before it staged them all, and only a run that stages this file (under this name) with ${someNames(missing)} completes that set and releases its rows`;
}

/**
 * The HELD rows this run did not release and that no running run stages, logged: of its own loads
 * that a set it did not stage whole holds (`blocked`, from releaseHeld), and of earlier loads
 * whose file has the base name of one of this run's files.
 */
export async function findStrandedHolds(
  engine: Pick<Reports, 'heldLoads'>,
  reports: FileReport[],
  options: Pick<LoadOptions, 'logger'>,
  blocked: ReadonlyMap<number, string[]> = new Map(),
): Promise<StrandedHold[]> {
  if (reports.length === 0) return [];
  const ownLoads = new Map(reports.map((r) => [r.loadId, r.file]));
  const names = new Map(reports.map((r) => [basename(r.file), r.file]));
  const stranded: StrandedHold[] = [];
  for (const held of await engine.heldLoads()) {
    if (held.staging || held.fileName === null) continue;
    const missing = blocked.get(held.loadId);
    const file = ownLoads.has(held.loadId)
      ? missing === undefined
        ? undefined
        : ownLoads.get(held.loadId)
      : names.get(basename(held.fileName));
    if (file === undefined) continue;
    const hold: StrandedHold = {
      file,
      loadId: held.loadId,
      rows: held.rows,
      heldSince: held.heldSince,
      heldFile: held.fileName,
      ...(missing === undefined ? {} : { missing }),
      ...(held.control === true ? { control: true as const } : {}),
    };
    options.logger.warn({ ...hold }, strandedMessage(hold));
    stranded.push(hold);
  }
  return stranded;
}

/** A list of file names, the first few and how many more. */
function someNames(names: readonly string[]): string {
  const shown = names.slice(0, 5).join(', ');
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}

/** What a stranded hold is and what releases it, in one line. */
export function strandedMessage(h: StrandedHold): string {
  const rows = `${h.rows} row${h.rows === 1 ? '' : 's'}`;
  const are = h.rows === 1 ? 'is' : 'are';
  const giveUp = '`order-loader recover --older-than <less than their age>` gives them up (audited) and hands them to processing';
  // recover never gives up a control hold: advising it would send the operator round in circles
  if (h.control === true)
    return `${h.file}: ${rows} of load ${h.loadId} (an earlier load of ${h.heldFile}) ${are} still HELD, out of processing: that load is held for its control totals (its file's count or sum differed from what was read), and this run did not stage them again. Neither a rerun nor \`recover\` releases them: ${acceptAdvice(h.loadId)}, once the partner confirmed them (leave them HELD if the file loaded now replaces that one)`;
  if (h.missing !== undefined)
    return `${h.file}: ${rows} of load ${h.loadId} ${are} still HELD, out of processing: a run that staged this file with other files was stopped before it staged them all, and this run did not stage ${someNames(h.missing)} of that set. Loading the whole set again releases them; ${giveUp}`;
  return `${h.file}: ${rows} of load ${h.loadId} (an earlier load of ${h.heldFile}, interrupted while staging) ${are} still HELD, out of processing: this run read the file as another one (changed content, profile, encoding or delimiter) and did not release them. Loading that earlier file again as it was releases them; ${giveUp}`;
}
