/**
 * What a run says when it stages its files in another order than the command line's, and the
 * order it is told in (src/pipeline/set-order.ts decides it). A module of its own: the reports
 * that say it (src/cli/render.ts) are rendered without the staging pipeline.
 */
import { basename } from 'node:path';

/** The files of a run in the order to stage them, and the sets that moved one of them. */
export interface SetOrder {
  paths: string[];
  /** The ids of the sets whose order is not the command line's (empty: the order is the command line's). */
  sets: number[];
  /** The files moved first because they resume a load an earlier run began, in the order those loads began (absent: none moved). */
  resumed?: Array<{ path: string; loadId: number }>;
  /** The sets staged again whose files moved first with them, each at its first load (absent: none moved). */
  restaged?: Array<{ setId: number; loadId: number; paths: string[] }>;
}

/** What the run says when it stages its files in another order than the command line's: an unfinished set's, resumed loads first. */
export function setOrderMessage(ordered: SetOrder): string {
  const why: string[] = [];
  const resumed = ordered.resumed ?? [];
  const restaged = ordered.restaged ?? [];
  const begun = [
    ...resumed.map((r) => `${basename(r.path)} resumes load ${r.loadId}`),
    ...restaged.map(
      (r) =>
        `the file set of run ${r.setId} (${r.paths.map((p) => basename(p)).join(', ')}) is staged again in its order at its load ${r.loadId}`,
    ),
  ];
  if (begun.length > 0)
    why.push(
      `${begun.join(', ')}, begun by a run stopped before its staging ended: load order is the order loads begin, so ${restaged.length > 0 ? 'a set staged again, as a resumed load,' : 'a resumed load'} is staged before the loads this run begins`,
    );
  if (ordered.sets.length > 0) {
    const runs = ordered.sets.map((id) => `run ${id}`).join(', ');
    why.push(`the file set of ${runs}, stopped before its staging ended, lists them so, and its lines count in that order`);
  }
  return `staging the files in the order ${ordered.paths.map((p) => basename(p)).join(', ')}: ${why.join('; ')} (the command line named them in another order)`;
}
