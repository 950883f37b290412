/**
 * Where each load a run begins stands in load order, recorded before it stages a line (table
 * load_place, migration 021; HoldSetsTx.recordLoadPlaces), and what a load begun before the run
 * yields to. Load order is the order in which loads begin, and load ids are taken in that order,
 * but a file set staged again (restaged-sets.ts) counts as begun where the set began, its files
 * in the set's order. Recorded, not only known to the run that staged the set again: a load begun
 * after the set, resumed by a later run, must not yield to the set's new loads (greater ids that
 * stand before it). Where the engine records no place (no recordLoadPlaces), the run's own places only.
 */
import { basename } from 'node:path';
import type { LoadPlace } from '../engine/types.js';
import type { FileStaging } from './load-file.js';
import { notLaterLoads, restagedPlace, type Position } from './restaged-sets.js';
import type { YieldTo } from './stage-batch.js';
import type { StagingPlan } from './staging-plan.js';

type PlacesRun = Pick<FileStaging, 'engine' | 'db' | 'restaging' | 'places' | 'restagedNames'>;

/** The places recorded for the loads from `fromLoad` on; where the engine records none, this run's. */
async function placesFrom(run: PlacesRun, fromLoad: number): Promise<LoadPlace[]> {
  const recorded = await run.db('reading where loads stand in load order', () =>
    run.engine.transaction(async (tx) => (tx.loadPlaces === undefined ? undefined : await tx.loadPlaces(fromLoad))),
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
 * yield to (undefined: nothing). A resumed load stands where it was recorded, else at itself. A
 * file of a set the run stages again (`plan` stages it afresh), begun before or not, stands at
 * the set's first load, at its place in the set (restagedPlace), and so do the set's own earlier
 * loads it supersedes; it does not yield to its own earlier load (`planned`'s: the same file).
 * A second file of the name, where the set has one, is not the set's: a new load. Any other new
 * load stands at itself and yields to nothing.
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
    // staged again, of a set that holds no load any more: at its earlier load
    if (plan === planned || earlier.length === 0) return undefined;
    return yieldAt(run, { began: earlier[0] ?? loadId, place: 0 }, [loadId, ...earlier]);
  }
  run.restagedNames?.set(key(restaged.set.setId), nth + 1);
  // the loads of the file's place it supersedes stand there too (a part's load, recorded at itself, keeps its place)
  await recordPlaces(run, [{ loadId, ...restaged.position }, ...restaged.supersedes.map((id) => ({ loadId: id, ...restaged.position }))]);
  return yieldAt(run, restaged.position, [loadId, ...earlier]);
}
