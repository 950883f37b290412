/** The report of a `load`/`stage` (load.ts, runLoad) and its exit code, from what its phases did. */
import type { LoadProcessCounts, LoadReport, FileReport, LoadOptions, StrandedHold } from './load-options.js';
import type { SetAside } from './load-checks.js';
import { heldByControl } from './load-control.js';
import type { moveFiles } from './load-moves.js';
import { exitCodeFor, notDone } from './outcome.js';
import type { SetOrder } from './set-order.js';

/** Why staging ended before the last file, if it did. */
export type StagingEnd = 'interrupted' | 'max-errors' | null;

/** What the run's staging did: why it ended early (if it did), the order it staged in, the loads it could not release. */
export interface Staged {
  staging: StagingEnd;
  ordered: SetOrder;
  /** The run's loads it could not release: a set it did not stage whole holds them. */
  blocked: Map<number, string[]>;
  stageMs: number;
}

/** What processing did after (or beside) staging, and why the run stopped early, if it did. */
export interface Processed {
  processCounts: LoadProcessCounts | null;
  earlierLoadRows: number;
  aborted: string | null;
  processMs: number;
}

/** What the run's report is made of, once its files are moved. */
export interface LoadOutcome {
  reports: FileReport[];
  aside: SetAside;
  /** The files not read, a file named on the command line marked so (`commandLine`). */
  notRead: LoadReport['notRead'];
  staged: Staged;
  processed: Processed;
  waiting: LoadReport['retryWait'];
  stranded: StrandedHold[];
  moved: Awaited<ReturnType<typeof moveFiles>>;
  started: number;
}

/** The run's report and its exit code. */
export function loadReport(command: 'load' | 'stage', options: LoadOptions, outcome: LoadOutcome): LoadReport {
  const { reports, aside, notRead, staged, waiting, stranded, moved } = outcome;
  const { processCounts, earlierLoadRows, aborted, processMs } = outcome.processed;
  const ordered = staged.ordered;
  return {
    command,
    files: reports,
    process: processCounts,
    retryWait: waiting,
    earlierLoadRows,
    ...(stranded.length > 0 ? { strandedHolds: stranded } : {}),
    ...(ordered.sets.length > 0 || ordered.resumed !== undefined || ordered.restaged !== undefined ? { setOrder: ordered } : {}),
    ...(moved.kept.length > 0 ? { keptForSets: moved.kept } : {}),
    ...(aside.controlRefused.length > 0 ? { controlRefused: aside.controlRefused } : {}),
    elapsedMs: performance.now() - outcome.started,
    stageMs: staged.stageMs,
    processMs,
    aborted,
    notRead,
    unreadable: aside.unreadable,
    archived: moved.archived,
    empty: aside.empty,
    ignored: options.listing?.ignored ?? [],
    ...(options.profiles === undefined
      ? {}
      : {
          unmatched: aside.unmatched,
          profiles: options.profiles.map((p) => ({ name: p.name, sha256: p.sha256, match: p.spec.match ?? '' })),
        }),
    exitCode: exitCodeFor({
      // a file whose control totals were missing or differ: nothing of it was merged
      failed: aborted !== null || aside.controlRefused.length > 0 || heldByControl(reports).length > 0,
      // `stage` promises staged rows, `load` rows DONE
      rowsRejected:
        reports.some((r) => r.counts.rejected > 0 || (command === 'load' ? notDone(r.tally) > 0 : (r.tally.ERROR ?? 0) > 0)) ||
        // rows of earlier loads this run took that did not end DONE, and rows of any load still waiting to retry
        (command === 'load' && ((processCounts?.error ?? 0) + (processCounts?.retryWait ?? 0) > 0 || (waiting?.count ?? 0) > 0)) ||
        // rows of an earlier load of these files that nothing run by the schedule will release
        stranded.length > 0,
      // a file no profile matched (--profiles) was not loaded: someone must add a profile or take it away
      // a file named on the command line that was not read (still being written, changed since it
      // was listed, or shorter than when it was read for repeated keys), and a file that
      // grew (or was replaced) while it was loaded: the rest is for the next run
      filesFailed:
        aside.unreadable.length > 0 ||
        moved.kept.length > 0 ||
        aside.unmatched.length > 0 ||
        reports.some((r) => discardedEverything(r) || r.leftInInbox !== undefined) ||
        notRead.some(namedNotRead),
    }),
  };
}

/** A file of which the profile's `when` (or comment, skip_lines) discarded every line it read: surely not what was meant (exit 2). */
export function discardedEverything(r: {
  counts: { read: number };
  discarded?: number | undefined;
  skipped?: string | null;
  control?: { status: string } | undefined;
}): boolean {
  // a file whose control totals agree holds no data record on purpose (a trailer stating 0)
  if (r.control?.status === 'ok') return false;
  return r.skipped == null && r.discarded !== undefined && r.discarded > 0 && r.counts.read === 0;
}

/** A file the user named on the command line and this run did not read: exit 2, and the reason is the file, not rows. */
export function namedNotRead(n: LoadReport['notRead'][number]): boolean {
  return n.named !== undefined || n.commandLine === true;
}
