/**
 * Where each load a run begins stands in load order, recorded before it stages a line (table
 * load_place, migration 021; HoldSetsTx.recordLoadPlaces), and what a load begun before the run
 * yields to. Load order is the order in which loads begin, and load ids are taken in that order,
 * but a killed set's files count as begun where the set began (its first load), in the set's
 * order: staged again whole (restaged-sets.ts), begun by a rerun of the whole set, or by a part of
 * the set that carries it on in its order (restaged-sets.ts, partPlace). A part that stages a file
 * of the set ahead of an unfinished earlier one is a load of its own, at itself. One rule then
 * decides what a load yields to: every load that stands after it, whatever file it staged.
 * Recorded, not only known to the run that staged the set again: a load begun after the set,
 * resumed by a later run, must not yield to the set's new loads (greater ids that stand before
 * it). Where the engine records no place (no recordLoadPlaces), the run's own places only.
 */
import { basename } from 'node:path';
import type { FileIdentity, LoadPlace, RunEventRecord } from '../engine/types.js';
import type { FileStaging } from './load-file.js';
import { derivedPlaces, notLaterLoads, restagedPlace, type Position } from './restaged-sets.js';
import type { YieldTo } from './stage-batch.js';
import type { StagingPlan } from './staging-plan.js';

type PlacesRun = Pick<FileStaging, 'engine' | 'db' | 'restaging' | 'places' | 'restagedNames'>;

/**
 * Of the loads the sets recorded before the run hold before the places `joined` (a part's load
 * takes them), those staged to their end, whichever command did it: a fact of the load, read
 * from what the database recorded, so that `load a b` and `load a; load b` carry a killed set on
 * alike. Staged whole by this run (resumed to its end, or skipped: `stagedLoads`), by the load's
 * own run (its 'staged' event), or by any later run of the same file: the staging history of the
 * load's file (the identity its own run's 'invoked' event recorded) names the load, staged. A
 * part carries a set on in its order only after them (restaged-sets.ts, partPlace).
 */
export async function stagedWholeBefore(
  run: Pick<FileStaging, 'engine' | 'db' | 'foreignSets' | 'stagedLoads'>,
  joined: ReadonlyArray<{ setId: number; fileNo: number }>,
): Promise<Set<number>> {
  const whole = new Set(run.stagedLoads ?? []);
  const before = (run.foreignSets ?? []).filter((f) => joined.some((j) => j.setId === f.setId && f.fileNo < j.fileNo));
  const loads = [...new Set(before.flatMap((f) => (f.loadId === null || whole.has(f.loadId) ? [] : [f.loadId])))];
  if (loads.length === 0) return whole;
  const events = await run.db("reading whether the file set's earlier loads were staged whole", () => run.engine.listRunEvents(loads));
  const ownRun = (e: RunEventRecord) => loads.includes(e.runId) && e.detail?.['loadId'] === e.runId;
  for (const e of events) if (e.event === 'staged' && ownRun(e)) whole.add(e.runId);
  for (const e of events) {
    const identity = e.event === 'invoked' && ownRun(e) && !whole.has(e.runId) ? invokedIdentity(e.detail) : undefined;
    if (identity === undefined) continue;
    const history = await run.db("reading the staging history of a file set's earlier load", () => run.engine.stagingHistory(identity));
    if (history?.loadId === e.runId && history.staged) whole.add(e.runId);
  }
  return whole;
}

/** The file a load's run read, as its 'invoked' event recorded it (defaults as stagingHistory reads them); undefined without its sha256. */
function invokedIdentity(detail: Record<string, unknown> | null): FileIdentity | undefined {
  const sha256 = detail?.['sha256'];
  if (typeof sha256 !== 'string') return undefined;
  const encoding = detail?.['encoding'];
  const delimiter = detail?.['delimiter'];
  const profile = (detail?.['profile'] as { sha256?: unknown } | null | undefined)?.sha256;
  return {
    sha256,
    encoding: typeof encoding === 'string' ? encoding : 'utf-8',
    delimiter: typeof delimiter === 'string' ? delimiter : ',',
    ...(typeof profile === 'string' ? { profile } : {}),
  };
}

/**
 * The places recorded for the loads from `fromLoad` on, with those the sets say and none recorded
 * (restaged-sets.ts, derivedPlaces: a database upgraded to migration 021 while a set staged again
 * was unfinished), recorded now; where the engine records none, this run's.
 */
async function placesFrom(run: PlacesRun, fromLoad: number): Promise<LoadPlace[]> {
  const recorded = await run.db('reading where loads stand in load order', () =>
    run.engine.transaction(async (tx) => {
      if (tx.loadPlaces === undefined) return undefined;
      const places = await tx.loadPlaces(fromLoad);
      const known = new Set(places.map((p) => p.loadId));
      const derived = derivedPlaces(await tx.allHoldSets()).filter((p) => p.loadId >= fromLoad && !known.has(p.loadId));
      if (derived.length > 0) await tx.recordLoadPlaces?.(derived);
      return [...places, ...derived];
    }),
  );
  return recorded ?? (run.places ?? []).filter((p) => p.loadId >= fromLoad);
}

/** These places recorded (a load that has one keeps it), and kept by the run. */
export async function recordPlaces(run: Pick<FileStaging, 'engine' | 'db' | 'places'>, places: LoadPlace[]): Promise<void> {
  if (places.length === 0) return;
  await run.db('recording where loads stand in load order', () =>
    run.engine.transaction(async (tx) => {
      await tx.recordLoadPlaces?.(places);
    }),
  );
  const known = new Set((run.places ?? []).map((p) => p.loadId));
  run.places?.push(...places.filter((p) => !known.has(p.loadId)));
}

/** What a staging at `at` yields to: the loads begun after it, not those that stand no later, nor its own (`own`). */
async function yieldAt(run: PlacesRun, at: Position, own: readonly number[]): Promise<YieldTo> {
  const notLater = notLaterLoads(at, await placesFrom(run, at.began + 1));
  return { began: at.began, except: [...new Set([...notLater, ...own])] };
}

/**
 * Where the file's load stands in load order, recorded when the run begins it, and what its lines
 * yield to (undefined: nothing): every load that stands after it (yieldAt), the file's own earlier
 * loads included. A resumed load stands where it was recorded, else at itself. A file of a set the
 * run stages again (`plan` stages it afresh), begun before or not, stands at the set's first load,
 * at its place in the set (restagedPlace), and so do the loads of that place the set's run or a
 * rerun of the whole set began (it supersedes them); a part's load of the file stands where its
 * part recorded it (file-holds.ts, foreignPlan): at the set's place when the part carried the set
 * on in its order, else at itself, later, and the file staged again yields to it. A second file
 * of the name, where the set has one, is not the set's: a new load. A part's new load recorded at
 * its set's place yields as the set's file would; any other new load stands at itself and yields
 * to nothing.
 */
export async function loadOrder(
  run: PlacesRun,
  path: string,
  planned: StagingPlan,
  plan: StagingPlan,
  loadId: number,
): Promise<YieldTo | undefined> {
  if (plan.action === 'resume') {
    const recorded = (await placesFrom(run, loadId)).find((p) => p.loadId === loadId);
    return yieldAt(run, recorded ?? { began: loadId, place: 0 }, [loadId]);
  }
  if (plan.action !== 'fresh') return undefined;
  const earlier = planned.action !== 'fresh' && planned.loadId !== null ? [planned.loadId] : [];
  const name = basename(path);
  const key = (setId: number) => `${setId}:${name}`;
  const found = restagedPlace(name, 0, run.restaging ?? []);
  const nth = found === undefined ? 0 : (run.restagedNames?.get(key(found.set.setId)) ?? 0);
  const restaged = found === undefined ? undefined : restagedPlace(name, nth, run.restaging ?? []);
  if (restaged === undefined) {
    const part = run.places?.find((p) => p.loadId === loadId && p.began < loadId);
    if (part !== undefined) return yieldAt(run, part, [loadId]);
    // staged again, of a set that holds no load any more: at its earlier load
    if (plan === planned || earlier.length === 0) return undefined;
    return yieldAt(run, { began: earlier[0] ?? loadId, place: 0 }, [loadId, ...earlier]);
  }
  run.restagedNames?.set(key(restaged.set.setId), nth + 1);
  // the loads of the file's place it supersedes stand there too (a part's load, recorded when it began, keeps its place)
  await recordPlaces(run, [{ loadId, ...restaged.position }, ...restaged.supersedes.map((id) => ({ loadId: id, ...restaged.position }))]);
  return yieldAt(run, restaged.position, [loadId]);
}
