import type { StatusTally } from '../engine/types.js';
import { controlStops, type ControlOutcome } from '../input/control/control-check.js';

/** Exit codes, as SQL*Loader's: 0 OK, 1 failed, 2 rows rejected (docs/ARCHITECTURE.md, section 9). */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_ROWS_REJECTED = 2;

/**
 * The one choice of an exit code: a run that failed or stopped early gives 1 whatever its rows
 * did; otherwise 2 when a row was rejected or did not end as the command promises, or a file
 * could not be read as an order file (moved to --failed-dir) or no load profile matched its name
 * (--profiles), else 0.
 */
export function exitCodeFor(outcome: { failed: boolean; rowsRejected: boolean; filesFailed?: boolean }): number {
  if (outcome.failed) return EXIT_FAILED;
  return outcome.rowsRejected || outcome.filesFailed === true ? EXIT_ROWS_REJECTED : EXIT_OK;
}

/**
 * Rows of a tally that did not end DONE: HELD ones too (another run, still staging or killed,
 * holds them until its set of files is staged), so that exit 0 means every row of the run's files is DONE.
 */
export function notDone(tally: StatusTally): number {
  return (tally.ERROR ?? 0) + (tally.RETRY_WAIT ?? 0) + (tally.READY ?? 0) + (tally.PROCESSING ?? 0) + (tally.HELD ?? 0);
}

/**
 * The exit code of `load --dry-run` / `stage --dry-run`: the one that command would give, rows
 * the database itself would refuse aside (`stage` does not validate: a rule broken is found later).
 */
export function dryRunExitCode(
  results: Array<{
    stoppedAt: unknown;
    counts: { rejected: number; invalid: number; read?: number };
    discarded?: number | undefined;
    unmatched?: string | undefined;
    control?: Pick<ControlOutcome, 'status' | 'onMismatch'> | undefined;
  }>,
  command: 'load' | 'stage' = 'load',
): number {
  return exitCodeFor({
    // a file a load would hold or refuse for its control totals: exit 1, as that load
    failed: results.some((r) => r.stoppedAt !== null || controlStops(r.control)),
    rowsRejected: results.some((r) => r.counts.rejected + (command === 'load' ? r.counts.invalid : 0) > 0),
    // a profile that discarded every line of a file: nothing of it would load
    // and a file no profile matched (--profiles): a load would not read it
    filesFailed: results.some(
      (r) => r.unmatched !== undefined || (r.discarded !== undefined && r.discarded > 0 && (r.counts.read ?? 0) === 0),
    ),
  });
}
