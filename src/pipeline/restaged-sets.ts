/**
 * The file sets a run stages again (restage, load-holds.ts foreignHold): a run of part of a killed
 * set staged one of its files out of order, so the run that stages the whole set stages each of
 * its files again as a new load. Load order is the order in which loads begin, and those loads
 * count as begun where the set began (its first load), its files in the set's order, not now: the
 * set's files go before the files new to the run (set-order.ts, resumesFirst), and a file staged
 * again yields to the loads begun after the set's first load, as a resumed load does
 * (stage-batch.ts, yieldToLaterLoads; where each load stands is recorded: load-places.ts). Pure.
 */
import type { HoldSetFile, LoadPlace } from '../engine/types.js';
import { bySet, missingNames, nameCounts } from './load-holds.js';

/** A set recorded before the run, marked to be staged again, that the run stages whole. */
export interface RestagingSet {
  setId: number;
  /** Its files' base names, in the set's order. */
  names: string[];
  /** The loads its files began before this run (a killed run's, and a part's that joined it). */
  loads: number[];
  /** The first of `loads` to begin: where the set stands in load order. */
  began: number;
  /** Each base name's places in the set (its file_no + 1), in order: a file staged again stands at `began`, at its place. */
  placesOf: ReadonlyMap<string, number[]>;
  /** The load at each of those places (null: none began there). */
  loadsAt: ReadonlyMap<string, Array<number | null>>;
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
    const placesOf = new Map<string, number[]>();
    const loadsAt = new Map<string, Array<number | null>>();
    for (const f of ordered) {
      placesOf.set(f.fileName, [...(placesOf.get(f.fileName) ?? []), f.fileNo + 1]);
      loadsAt.set(f.fileName, [...(loadsAt.get(f.fileName) ?? []), f.loadId]);
    }
    found.push({ setId, names: ordered.map((f) => f.fileName), loads, began: Math.min(...loads), placesOf, loadsAt });
  }
  return found.sort((a, b) => a.began - b.began);
}

/** Where a load stands in load order: after load `began`, at `place` (LoadPlace without its load). */
export type Position = Pick<LoadPlace, 'began' | 'place'>;

/** Whether `a` stands no later than `b` in load order. */
export function notAfter(a: Position, b: Position): boolean {
  return a.began < b.began || (a.began === b.began && a.place <= b.place);
}

/**
 * The loads with a greater id than `at.began` that stand no later than `at` (`places`: the
 * recorded places; a load without one stands at its id, later): the loads a staging at `at` does
 * not yield to. A load begun after a set's first load stands after every file the set staged again.
 */
export function notLaterLoads(at: Position, places: readonly LoadPlace[]): number[] {
  const found = places.filter((p) => p.loadId > at.began && notAfter(p, at)).map((p) => p.loadId);
  return [...new Set(found)].sort((a, b) => a - b);
}

/**
 * Where the `nth` file (from 0) named `name` that this run stages of the sets it stages again
 * stands: at the first such set (the first to begin) that has the name, at the set's first load,
 * at that file's place in the set; undefined: the file is of none of them. `supersedes`: the loads
 * that every set the run stages again began at that file's place after that first load (the set's
 * own, a killed rerun's of the same files): staged again, the file stands for them, at its place.
 */
export function restagedPlace(
  name: string,
  nth: number,
  restaging: readonly RestagingSet[],
): { set: RestagingSet; position: Position; supersedes: number[] } | undefined {
  const set = restaging.find((s) => s.placesOf.has(name));
  const places = set?.placesOf.get(name) ?? [];
  if (set === undefined || nth >= places.length) return undefined;
  const at = <T>(list: readonly T[]) => list[Math.min(nth, list.length - 1)];
  const supersedes = restaging.flatMap((s) => {
    const load = at(s.loadsAt.get(name) ?? []);
    return load === undefined || load === null || load <= set.began ? [] : [load];
  });
  return { set, position: { began: set.began, place: at(places) ?? 0 }, supersedes: [...new Set(supersedes)] };
}
