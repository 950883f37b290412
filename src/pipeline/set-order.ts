/**
 * The order a run stages its files in. Load order is the order in which loads begin: a file whose
 * staging resumes a load an earlier run began (killed, or still staging) is staged before the
 * files new to this run, in the order those loads began (resumesFirst). Staged after a new file
 * that shares a key with it, the resumed load's line of that key would win or lose depending on
 * whether the kill came before or after that line committed. Then, when the files hold the whole
 * file set of an earlier run that did not end its staging: the set's order, whatever order the
 * command line named them in. A set's lines count in the order its own run listed them: resuming
 * the killed file after a file the set puts after it (`load b.csv a.csv` after `load a.csv b.csv`
 * killed inside a.csv) would let the killed file's later lines win over that file's, so which
 * line of a key wins would depend on where the first run was killed. A run that stages only part
 * of a set is not reordered: what it stages of the set is held (load-holds.ts, foreignHold) and
 * the run that completes the set stages those files again, in the set's order (restage).
 */
import { basename } from 'node:path';
import type { HoldSetFile } from '../engine/types.js';
import { bySet, foreignHold, missingNames, nameCounts } from './load-holds.js';
import { readAsOf, type FileStaging } from './load-file.js';
import type { LoadOptions } from './load-options.js';
import { planStaging, type StagingPlan } from './staging-plan.js';
import { restagingSets } from './restaged-sets.js';
import { setOrderMessage, type SetOrder } from './set-order-message.js';

export { setOrderMessage, type SetOrder };

/** A file's staging plan as its history says before the run reaches it, and the run that history names. */
export interface EarlierPlan {
  plan: StagingPlan;
  stagedBy: number | null;
}

/**
 * Before the run stages: each file's plan as its history says now, from the identity the
 * pre-read found (a file the pre-read did not read has none). Read once, for the order of the
 * files (set-order.ts, resumesFirst) and the holds taken before staging (holdBeforeProcessing).
 */
export async function earlierPlans(
  run: Pick<FileStaging, 'engine' | 'db' | 'held'>,
  files: readonly string[],
  optionsOf: (path: string) => LoadOptions,
): Promise<Map<string, EarlierPlan>> {
  const plans = new Map<string, EarlierPlan>();
  for (const path of files) {
    const sha256 = run.held?.files.get(path)?.sha256;
    if (sha256 === undefined) continue;
    const options = optionsOf(path);
    const readAs = await readAsOf(path, options);
    const history = await run.db('reading the staging history', () => run.engine.stagingHistory({ sha256, ...readAs }));
    plans.set(path, { plan: planStaging(history, { ...readAs, restage: options.restage }), stagedBy: history?.runId ?? null });
  }
  return plans;
}

/**
 * Pure: the files of `ordered` whose staging resumes an earlier load (`resumes`: path → that
 * load's id), and the files of each set staged again (`restaged`, its files in `ordered`'s order,
 * which is the set's: orderBySets), first, in the order those loads began (a set at its first
 * load), then the others in `ordered`'s order. `resumed` and `restaged` are set only when a file moved.
 */
export function resumeOrder(
  ordered: SetOrder,
  resumes: ReadonlyMap<string, number>,
  restaged: ReadonlyArray<{ setId: number; loadId: number; paths: readonly string[] }> = [],
): SetOrder {
  // a file of two sets staged again goes with the first of them
  const taken = new Set<string>();
  const blocks: Array<{ setId: number; loadId: number; paths: string[] }> = [];
  for (const set of restaged) {
    const paths = ordered.paths.filter((p) => set.paths.includes(p) && !taken.has(p));
    paths.forEach((p) => taken.add(p));
    if (paths.length > 0) blocks.push({ setId: set.setId, loadId: set.loadId, paths });
  }
  const singles = ordered.paths
    .filter((p) => resumes.has(p) && !taken.has(p))
    .map((path) => ({ path, loadId: resumes.get(path) ?? 0 }))
    .sort((a, b) => a.loadId - b.loadId);
  singles.forEach((f) => taken.add(f.path));
  const first = [...singles.map((f) => ({ loadId: f.loadId, paths: [f.path] })), ...blocks].sort((a, b) => a.loadId - b.loadId);
  const paths = [...first.flatMap((f) => f.paths), ...ordered.paths.filter((p) => !taken.has(p))];
  if (paths.every((p, i) => p === ordered.paths[i])) return ordered;
  return {
    ...ordered,
    paths,
    ...(singles.length > 0 ? { resumed: singles } : {}),
    ...(blocks.length > 0 ? { restaged: blocks } : {}),
  };
}

/**
 * Once the pre-read found each file's identity: the files whose staging would resume a load an
 * earlier run began (`earlier`, each file's plan as its history says), except those a set this
 * run stages whole will stage again as new loads (restage), go first; so do the files of each such
 * set, in its order, at its first load (resumeOrder). Said in the log.
 */
export async function resumesFirst(
  run: Pick<FileStaging, 'engine' | 'db' | 'options'>,
  ordered: SetOrder,
  earlier: ReadonlyMap<string, EarlierPlan>,
): Promise<SetOrder> {
  if (ordered.paths.length < 2) return ordered;
  const resumes = new Map<string, number>();
  const names = ordered.paths.map((p) => basename(p));
  const begun = ordered.paths.some((p) => ['resume', 'skip'].includes(earlier.get(p)?.plan.action ?? 'fresh'));
  if (!begun) return ordered;
  const sets = await run.db('reading the file sets of earlier runs', () => run.engine.transaction((tx) => tx.allHoldSets()));
  for (const path of ordered.paths) {
    const plan = earlier.get(path)?.plan;
    if (plan?.action !== 'resume') continue;
    if (!foreignHold(sets, names, path, plan.loadId).restage) resumes.set(path, plan.loadId);
  }
  const restaged = restagingSets(sets, names).map((set) => ({
    setId: set.setId,
    loadId: set.began,
    paths: placesOf(
      set.names.map((fileName) => ({ fileName })),
      names,
    ).flatMap((i) => (i < 0 ? [] : [ordered.paths[i] ?? ''])),
  }));
  const reordered = resumeOrder(ordered, resumes, restaged);
  if (reordered !== ordered)
    run.options.logger.info(
      { resumed: reordered.resumed, restaged: reordered.restaged, files: reordered.paths },
      setOrderMessage(reordered),
    );
  return reordered;
}

/** The run's file at each place of a set: the k-th file of a name in the set is the run's k-th file of that name. */
function placesOf(files: ReadonlyArray<Pick<HoldSetFile, 'fileName'>>, names: readonly string[]): number[] {
  const at = new Map<string, number[]>();
  names.forEach((name, i) => at.set(name, [...(at.get(name) ?? []), i]));
  const taken = new Map<string, number>();
  return files.map((f) => {
    const k = taken.get(f.fileName) ?? 0;
    taken.set(f.fileName, k + 1);
    return at.get(f.fileName)?.[k] ?? -1;
  });
}

/** Whether `to` follows `from` through the edges already laid. */
function reaches(after: readonly number[][], from: number, to: number): boolean {
  const seen = new Set<number>();
  const stack = [from];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node === to) return true;
    if (seen.has(node)) continue;
    seen.add(node);
    stack.push(...(after[node] ?? []));
  }
  return false;
}

/**
 * Pure: the run's files (`paths`) ordered so that the files of every set recorded before it that
 * it stages whole (by base name, as many of each name as the set has) come in the set's order;
 * otherwise the command line's order, as far as those orders allow (a file stays before every
 * later file of the command line unless a set puts it after one). Two sets that want two files
 * in opposite orders: the earlier set (the lower id) wins.
 */
export function setOrder(paths: readonly string[], sets: readonly HoldSetFile[]): SetOrder {
  const names = paths.map((p) => basename(p));
  const runs = nameCounts(names);
  const after: number[][] = paths.map(() => []);
  const before = paths.map(() => 0);
  const moved: number[] = [];
  for (const [setId, files] of [...bySet(sets)].sort(([a], [b]) => a - b)) {
    if (missingNames(files, runs).length > 0) continue;
    const places = placesOf(
      [...files].sort((a, b) => a.fileNo - b.fileNo),
      names,
    );
    let reordered = false;
    for (let i = 0; i + 1 < places.length; i++) {
      const from = places[i] ?? -1;
      const to = places[i + 1] ?? -1;
      if (from < 0 || to < 0 || reaches(after, to, from)) continue;
      after[from]?.push(to);
      before[to] = (before[to] ?? 0) + 1;
      reordered ||= to < from;
    }
    if (reordered) moved.push(setId);
  }
  if (moved.length === 0) return { paths: [...paths], sets: [] };
  // the files free to go next, largest first: the smallest (earliest on the command line) is popped
  const ready = paths
    .map((_, i) => i)
    .filter((i) => before[i] === 0)
    .reverse();
  const order: string[] = [];
  for (let next = ready.pop(); next !== undefined; next = ready.pop()) {
    order.push(paths[next] ?? '');
    for (const to of after[next] ?? []) {
      before[to] = (before[to] ?? 0) - 1;
      if (before[to] !== 0) continue;
      const at = ready.findIndex((i) => i < to);
      ready.splice(at < 0 ? ready.length : at, 0, to);
    }
  }
  return { paths: order, sets: moved };
}

/**
 * Before the run reads its files for their keys: the sets recorded before it are read and the
 * run's files put in the order of each set it stages whole (setOrder), said in the log.
 */
export async function orderBySets(run: Pick<FileStaging, 'engine' | 'db' | 'options'>, paths: readonly string[]): Promise<SetOrder> {
  if (paths.length < 2) return { paths: [...paths], sets: [] };
  const sets = await run.db('reading the file sets of earlier runs', () => run.engine.transaction((tx) => tx.allHoldSets()));
  const ordered = setOrder(paths, sets);
  if (ordered.sets.length > 0) run.options.logger.info({ sets: ordered.sets, files: ordered.paths }, setOrderMessage(ordered));
  return ordered;
}
