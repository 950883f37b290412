/**
 * What a file of a `load`/`stage` meets before it stages (load-file.ts): the earlier loads it
 * skips or resumes held again, the file sets recorded before the run (held whole, joined, or
 * staged again: load-holds.ts, foreignHold), and the control hold of its load.
 */
import { basename } from 'node:path';
import { controlSummary, type ControlOutcome } from '../input/control/control-check.js';
import type { FileStaging } from './load-file.js';
import { emptyLoads, foreignHold, type ForeignHold } from './load-holds.js';
import { partPlace, restagedPlace, restagingSets } from './restaged-sets.js';
import { stagedWholeBefore } from './load-places.js';
import type { EarlierPlan } from './set-order.js';
import { planLoadId, type StagingPlan } from './staging-plan.js';

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
export async function holdAgain(run: FileStaging, plan: StagingPlan, stagedBy: number | null): Promise<boolean> {
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
  run.places = [];
  run.restagedNames = new Map();
  run.stagedLoads = [];
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

/** Whether an operator let this load through (`accept`) after its control totals failed. */
export async function acceptedLoad(run: FileStaging, loadId: number): Promise<boolean> {
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
export async function holdForControl(run: FileStaging, runId: number, loadId: number, control: ControlOutcome): Promise<void> {
  const detail = { loadId, file: control.file, where: control.where, status: control.status, claimed: control.claimed, read: control.read };
  await run.db('recording the control hold', () =>
    run.engine.transaction((tx) => tx.addRunEvent(runId, { event: 'control_held', detail })),
  );
  run.options.logger.warn(
    { runId, loadId, file: control.file },
    `${controlSummary(control)}: load ${loadId} is HELD: nothing of it is merged until \`order-loader accept ${loadId} --reason "…"\``,
  );
}

/**
 * Whether `loadId`, a load the file resumes, is a part's load of its own (recorded at itself,
 * after the first load of the set this run stages again: restaged-sets.ts, partPlace): a load
 * begun after the set, which stands after every file of the set staged again. The run finishes
 * it, at its place, rather than stage the file afresh at the set's place: killed or not, the
 * part's lines stand after the set's (a file staged again at the set's place would leave the
 * lines past the part's kill before the set's later files).
 */
async function partOwnLoad(run: FileStaging, path: string, loadId: number): Promise<boolean> {
  const set = restagedPlace(basename(path), 0, run.restaging ?? [])?.set;
  if (set === undefined || loadId <= set.began) return false;
  const places = await run.db('reading where loads stand in load order', () =>
    run.engine.transaction(async (tx) => (tx.loadPlaces === undefined ? [] : tx.loadPlaces(loadId))),
  );
  return places.some((p) => p.loadId === loadId && p.began === loadId);
}

/**
 * What the sets recorded before this run ask of the file (load-holds.ts, foreignHold): a file of
 * a set it stages whole that a part of the set staged out of order is staged again; a file whose
 * load a set it does not stage whole holds (or takes a place that set's run had not begun, or
 * began on a load that committed nothing) has
 * every row held, its load joining that set (and the set marked to be staged again in order).
 */
export async function foreignPlan(
  run: FileStaging,
  path: string,
  plan: StagingPlan,
  runId: number,
): Promise<{ plan: StagingPlan; hold: ForeignHold }> {
  const sets = run.foreignSets ?? [];
  const names = run.runNames ?? [];
  const first = foreignHold(sets, names, path, planLoadId(plan, runId), { stagedWhole: plan.action === 'skip', emptied: run.emptyLoads });
  const resumesOwn = plan.action === 'resume' && (await partOwnLoad(run, path, plan.loadId));
  const restaged: StagingPlan =
    first.restage && (plan.action === 'skip' || (plan.action === 'resume' && !resumesOwn)) ? { action: 'fresh', reason: 'restage' } : plan;
  const hold = restaged === plan ? first : foreignHold(sets, names, path, runId);
  if (hold.join.length > 0) {
    const loadId = planLoadId(restaged, runId);
    const whole = restaged === plan ? await stagedWholeBefore(run, hold.join) : new Set<number>();
    const place = await run.db("joining the file's load to a killed run's file set", () =>
      run.engine.transaction(async (tx) => {
        for (const place of hold.join) {
          await tx.joinHoldSet(place.setId, place.fileNo, loadId);
          await tx.restageHoldSet(place.setId);
        }
        if (restaged !== plan) return undefined;
        // a part's load stands at the set's place or at itself (partPlace), recorded with its join:
        // the run that stages the set again does not move it
        const at = partPlace(await tx.allHoldSets(), hold.join, loadId, whole);
        await tx.recordLoadPlaces?.([at]);
        return at;
      }),
    );
    if (place !== undefined) run.places?.push(place);
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
