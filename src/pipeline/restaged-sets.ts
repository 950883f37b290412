/**
 * The file sets a run stages again (restage, load-holds.ts foreignHold): a run of part of a killed
 * set staged one of its files out of order, so the run that stages the whole set stages each of
 * its files again as a new load. Load order is the order in which loads begin, and those loads
 * began when the set's own loads of the files did, not now: the set's files go before the files
 * new to the run (set-order.ts, resumesFirst), and a file staged again yields to the loads begun
 * after the set's load of it, as a resumed load does (stage-batch.ts, yieldToLaterLoads). Pure,
 * but for loadOrder, which records each load the run begins.
 */
import type { HoldSetFile } from '../engine/types.js';
import { basename } from 'node:path';
import { bySet, missingNames, nameCounts } from './load-holds.js';
import type { FileStaging } from './load-file.js';
import type { YieldTo } from './stage-batch.js';
import type { StagingPlan } from './staging-plan.js';

/** A set recorded before the run, marked to be staged again, that the run stages whole. */
export interface RestagingSet {
  setId: number;
  /** Its files' base names, in the set's order. */
  names: string[];
  /** The loads its files began before this run (a killed run's, and a part's that joined it). */
  loads: number[];
  /** The load of each of its base names (the first place of that name that has one). */
  loadOf: ReadonlyMap<string, number>;
  /** The first of `loads` to begin: where the set stands in load order. */
  began: number;
}

/** The sets marked `restage` whose every file is among `runNames` (by base name, as many of each as the set has) and that began a load. */
export function restagingSets(sets: readonly HoldSetFile[], runNames: readonly string[]): RestagingSet[] {
  const runs = nameCounts(runNames);
  const found: RestagingSet[] = [];
  for (const [setId, files] of bySet(sets)) {
    if (!files.some((f) => f.restage) || missingNames(files, runs).length > 0) continue;
    const ordered = [...files].sort((a, b) => a.fileNo - b.fileNo);
    const loads = ordered.flatMap((f) => (f.loadId === null ? [] : [f.loadId]));
    if (loads.length === 0) continue;
    const loadOf = new Map<string, number>();
    for (const f of ordered) if (f.loadId !== null && !loadOf.has(f.fileName)) loadOf.set(f.fileName, f.loadId);
    found.push({ setId, names: ordered.map((f) => f.fileName), loads, loadOf, began: Math.min(...loads) });
  }
  return found.sort((a, b) => a.began - b.began);
}

/** A load this run began, and when it counts as begun: a file staged again at its set's load of it; null: now. */
export interface RunLoad {
  loadId: number;
  began: number | null;
  /** The restaging sets the file is of. */
  setIds: readonly number[];
}

/**
 * The loads with a greater id than `began` whose lines a staging that began at `began` does not
 * yield to: this run's loads that count as begun no later (files staged again at their set's
 * loads), and, for a file of restaging sets (`setIds`), the loads of those sets, earlier and this
 * run's: a set staged again is staged in its own order, its later files over its earlier ones.
 */
export function notLaterLoads(
  began: number,
  setIds: readonly number[],
  restaging: readonly RestagingSet[],
  runLoads: readonly RunLoad[],
): number[] {
  const ofSets = (ids: readonly number[]) => ids.some((id) => setIds.includes(id));
  const earlier = restaging.filter((s) => setIds.includes(s.setId)).flatMap((s) => s.loads);
  const own = runLoads.filter((l) => (l.began !== null && l.began <= began) || ofSets(l.setIds)).map((l) => l.loadId);
  return [...new Set([...earlier, ...own])].filter((id) => id > began).sort((a, b) => a - b);
}

/**
 * Where a file staged again stands in load order: at its restaging sets' load of it (the first to
 * begin, if two sets have one), else at the load its staging history names (`earlierLoad`).
 */
export function restagedBegan(name: string, earlierLoad: number, restaging: readonly RestagingSet[]): { began: number; setIds: number[] } {
  const sets = restaging.filter((s) => s.names.includes(name));
  const loads = sets.flatMap((s) => {
    const load = s.loadOf.get(name);
    return load === undefined ? [] : [load];
  });
  return { began: loads.length > 0 ? Math.min(...loads) : earlierLoad, setIds: sets.map((s) => s.setId) };
}

/**
 * Where the file's load stands in load order, recorded among the run's loads when the run begins
 * it, and what its lines yield to (undefined: nothing). A resumed load stands at itself; a file of
 * a set staged again (`planned` skipped or resumed a load, `plan` stages it afresh: foreignPlan)
 * at its set's load of it (restagedBegan), not at this run's; any other new load at now.
 */
export function loadOrder(
  run: Pick<FileStaging, 'restaging' | 'runLoads'>,
  path: string,
  planned: StagingPlan,
  plan: StagingPlan,
  loadId: number,
): YieldTo | undefined {
  const restaging = run.restaging ?? [];
  const runLoads = run.runLoads ?? [];
  if (plan.action === 'resume') return { began: loadId, except: notLaterLoads(loadId, [], restaging, runLoads) };
  if (plan.action !== 'fresh') return undefined;
  const name = basename(path);
  if (plan === planned || planned.action === 'fresh' || planned.loadId === null) {
    runLoads.push({ loadId, began: null, setIds: restaging.filter((s) => s.names.includes(name)).map((s) => s.setId) });
    return undefined;
  }
  const { began, setIds } = restagedBegan(name, planned.loadId, restaging);
  // nor to its own lines: this load's, and the earlier load of the file it stages again
  const except = [...notLaterLoads(began, setIds, restaging, runLoads), loadId, planned.loadId];
  runLoads.push({ loadId, began, setIds });
  return { began, except };
}
