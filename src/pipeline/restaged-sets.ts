/**
 * The file sets a run stages again (restage, load-holds.ts foreignHold): a run of part of a killed
 * set staged one of its files out of order, so the run that stages the whole set stages each of
 * its files again as a new load. Load order is the order in which loads begin, and those loads
 * count as begun where the set began (its first load), its files in the set's order, not now: the
 * set's files go before the files new to the run (set-order.ts, resumesFirst), and a file staged
 * again yields to the loads begun after the set's first load, as a resumed load does
 * (stage-batch.ts, yieldToLaterLoads; where each load stands is recorded: load-places.ts). A
 * part's load of a file of the set stands at the set's place or at itself (partPlace), and the
 * places a database upgraded while a set was staged again lacks are found in the sets
 * (derivedPlaces). Pure.
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

/**
 * Where a load that a part of a killed set begins for a file the set's run had not begun stands
 * (`joined`: the places it takes, in `sets` as they are once it took them). The part carries the
 * set on in its order when every file before that place has a load staged whole (`stagedWhole`:
 * by whichever command, load-places.ts stagedWholeBefore), as the set's run would have gone on:
 * the load is the set's, at the set's first load, at its place (the first such set's). Otherwise the part staged the file ahead of an earlier file of
 * the set still unfinished, out of the set's order: a load of its own, at itself, later than
 * every file of the set staged again. A load that is now its set's first stands at itself.
 */
export function partPlace(
  sets: readonly HoldSetFile[],
  joined: ReadonlyArray<{ setId: number; fileNo: number }>,
  loadId: number,
  stagedWhole: ReadonlySet<number>,
): LoadPlace {
  let at: Position | undefined;
  for (const { setId, fileNo } of joined) {
    const files = sets.filter((f) => f.setId === setId);
    const before = files.filter((f) => f.fileNo < fileNo);
    if (before.some((f) => f.loadId === null || !stagedWhole.has(f.loadId))) return { loadId, began: loadId, place: 0 };
    const began = Math.min(loadId, ...files.flatMap((f) => (f.loadId === null ? [] : [f.loadId])));
    const here = { began, place: fileNo + 1 };
    if (at === undefined || notAfter(here, at)) at = here;
  }
  return at === undefined || at.began >= loadId ? { loadId, began: loadId, place: 0 } : { loadId, ...at };
}

/**
 * The places a run that stages a set again records for its loads, derived from the sets alone:
 * for each set whose run is not a part (not marked restage) and that stages whole a set marked
 * restage, each of its loads begun after that set's first load stands at the set's first load,
 * at its file's place (restagedPlace). A database upgraded to load_place (migration 021) while
 * such a run was unfinished has no place recorded for them (a version before kept them in
 * memory); the sets that hold their loads still say where they stand. A part's loads (its sets
 * are marked restage) are left where they were recorded, or at themselves.
 */
export function derivedPlaces(sets: readonly HoldSetFile[]): LoadPlace[] {
  const found: LoadPlace[] = [];
  for (const [, files] of bySet(sets)) {
    if (files.some((f) => f.restage)) continue;
    const ordered = [...files].sort((a, b) => a.fileNo - b.fileNo);
    const restaging = restagingSets(
      sets,
      ordered.map((f) => f.fileName),
    );
    const nth = new Map<string, number>();
    for (const f of ordered) {
      const n = nth.get(f.fileName) ?? 0;
      nth.set(f.fileName, n + 1);
      const at = restagedPlace(f.fileName, n, restaging);
      if (at !== undefined && f.loadId !== null && f.loadId > at.position.began) found.push({ loadId: f.loadId, ...at.position });
    }
  }
  return found;
}
