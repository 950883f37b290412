import type { StagingHistory } from '../engine/types.js';
import { isStageCounts, type FileStageCounts, type StageCheckpoint } from './stage.js';

/** How this run reads the file, and whether it was told to stage it again regardless. */
export interface StagingPlanOptions {
  encoding: string;
  delimiter: string;
  /** The sha256 of the load profile the file is read with (absent or 'builtin': the built-in format). */
  profile?: string | undefined;
  /** --restage: stage the file again as a new load, whatever its history says. */
  restage?: boolean | undefined;
}

/** Why a file is staged from line 1 as a new load (the load is this run). */
export type FreshReason =
  /** No load of these bytes (sha256) was recorded. */
  | 'new'
  /** --restage. */
  | 'restage'
  /** The recorded load read the same bytes with another encoding, delimiter or profile: another file. */
  | 'read-differently'
  /** The recorded load committed no batch. */
  | 'nothing-committed';

export type StagingPlan =
  /** Staged completely by `loadId`: not read again. */
  | { action: 'skip'; loadId: number; committed: FileStageCounts | null }
  /**
   * An earlier load could not read the file past `stoppedAt.line`: not read again (it would stop
   * there again). `loadId` null: that load had no byte offsets, so this run is the file's load.
   */
  | { action: 'stop'; loadId: number | null; stoppedAt: { line: number; message: string }; committed: FileStageCounts | null }
  /**
   * Continue `loadId` after its last committed batch, its counts carried over: at its byte offset,
   * or, in a file read without byte offsets (a decoded encoding: `byte` null), after its line.
   */
  | { action: 'resume'; loadId: number; from: StageCheckpoint; counts: FileStageCounts | null }
  | { action: 'fresh'; reason: FreshReason };

/**
 * Skip, stop, resume or stage afresh (docs/ARCHITECTURE.md, section 2, step 2): decided from
 * what the latest load of the same bytes (same sha256) committed. Pure: no I/O.
 */
export function planStaging(recorded: StagingHistory | null, options: StagingPlanOptions): StagingPlan {
  if (recorded === null) return { action: 'fresh', reason: 'new' };
  if (options.restage === true) return { action: 'fresh', reason: 'restage' };
  // The same bytes read with another encoding or delimiter are another file: a rerun that
  // corrects --encoding must stage it, not skip it.
  if (
    recorded.readAs.encoding !== options.encoding ||
    recorded.readAs.delimiter !== options.delimiter ||
    (recorded.readAs.profile ?? 'builtin') !== (options.profile ?? 'builtin')
  ) {
    return { action: 'fresh', reason: 'read-differently' };
  }
  const checkpoint = recorded.checkpoint;
  // The lines the earlier load rejected are still rejected: a skipped or stopped file counts
  // them for --max-errors and the exit code.
  const committed = checkpoint !== null && isStageCounts(checkpoint.counts) ? checkpoint.counts : null;
  if (recorded.staged) return { action: 'skip', loadId: recorded.loadId, committed };
  if (checkpoint === null) return { action: 'fresh', reason: 'nothing-committed' };
  if (checkpoint.stoppedAt != null) {
    return { action: 'stop', loadId: checkpoint.byte !== null ? recorded.loadId : null, stoppedAt: checkpoint.stoppedAt, committed };
  }
  return { action: 'resume', loadId: recorded.loadId, from: { line: checkpoint.line, byte: checkpoint.byte }, counts: committed };
}

/** The load the file's rows belong to: the earlier load the plan continues, or this run's. */
export function planLoadId(plan: StagingPlan, runId: number): number {
  return plan.action === 'fresh' || plan.loadId === null ? runId : plan.loadId;
}

/** Where staging resumed, for the report (null unless the plan resumes). */
export function resumedAt(plan: StagingPlan): StageCheckpoint | null {
  return plan.action === 'resume' ? plan.from : null;
}
