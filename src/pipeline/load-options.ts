import type { ControlOutcome } from '../input/control/control-check.js';
import type { Logger } from 'pino';
import type { StatusTally } from '../engine/types.js';
import type { ListedFile } from '../input/inputs.js';
import type { FileEncoding } from '../input/order-file.js';
import type { LoadProfile } from '../input/profile/load-profile.js';
import type { ProcessCounts } from './process.js';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.js';
import type { FileStageCounts, StageCheckpoint } from './stage.js';

/** The options and reports of `load`, `stage` and `process`. */

export interface StageOptions {
  encoding: FileEncoding;
  delimiter: string;
  /** How files are read and mapped onto the five fields (src/input/profile/); none: the built-in format. */
  profile?: LoadProfile | undefined;
  /**
   * Inbox routing (`--profiles`): each file is read with the profile whose `match:` takes its name
   * (src/input/profile/routing.ts); a file two take refuses the run, a file none takes is not read
   * (moved to `failedDir` with a note, or left where it is: `LoadReport.unmatched`). Not with `profile`.
   */
  profiles?: readonly LoadProfile[] | undefined;
  /** Lines per staging transaction. */
  batchSize: number;
  retry: RetryPolicy;
  logger: Logger;
  signal?: AbortSignal | undefined;
  onStageProgress?: ((file: string, bytesRead: number, size: number, linesRead: number) => void) | undefined;
  /** Stage every file again as a new load, even when the same file was staged completely before. */
  restage?: boolean | undefined;
  /**
   * How long a file's staging waits for another run that holds its claim (the same file staged
   * by another process at once: src/pipeline/file-claim.ts), in ms; 0 refuses at once (default 10
   * minutes; the CLI's --lock-timeout).
   */
  claimWaitMs?: number | undefined;
  /** The most a gzip file may inflate to per compressed byte (--max-inflate; src/input/inflate-cap.ts): past it the file is refused at that line. */
  maxInflate?: number | undefined;
  /** Move each file whose load ended (exit 0 or 2) here, after the commit that ended it (src/pipeline/archive.ts). */
  archiveDir?: string | undefined;
  /** Move each file that cannot be read as an order file here, with `<name>.error.txt` (the run goes on: exit 2). */
  failedDir?: string | undefined;
  /** The files as listed (src/input/inputs.ts): one whose size or time changed since is not read this time. */
  listed?: ListedFile[] | undefined;
  /**
   * Called once the runs are ended and before any file is moved, with the loads of the report:
   * what a caller's report needs of the database is read here, for the database may be gone
   * after the moves while everything was committed (a failure here fails the run, files unmoved).
   */
  beforeMoves?: ((loadIds: number[]) => Promise<void>) | undefined;
  /** The marker suffix (`--ready-suffix`) of the listed files' markers, which move with them. */
  readySuffix?: string | undefined;
  /** The quiet period (--settle), in ms: a file whose control file was modified more recently is left for the next run. */
  settleMs?: number | undefined;
  /** What the listing left for the next run or did not read (src/input/inputs.ts): put in the report as they are. */
  listing?: { notReady: Array<{ file: string; reason: string }>; ignored: Array<{ file: string; reason: string }> } | undefined;
}

export interface ProcessRunOptions {
  chunkSize: number;
  workers: number;
  maxAttempts: number;
  maxErrors?: number | undefined;
  rowRetryBaseMs: number;
  rowRetryMaxMs: number;
  /** The longest a chunk waits for a row another session holds, in ms (0: for ever); see ProcessOptions. */
  lockWaitMs: number;
  retry: RetryPolicy;
  logger: Logger;
  signal?: AbortSignal | undefined;
  onProcessProgress?: ((counts: ProcessCounts) => void) | undefined;
  /** `load` on a server database: process while staging (default true; false: after staging). See LoadProcessing. */
  overlap?: boolean | undefined;
  /**
   * `load` on PostgreSQL (PGlite and server): write the rows processing would merge DONE, and
   * merge them, in the staging batch that stages them (default true; false: every row READY,
   * processed after staging, or beside it on a server). The
   * same outcome either way (test/integration/settle-while-staging.test.ts); see
   * sql/postgres/migrations/015_settle_while_staging.sql.
   */
  settleWhileStaging?: boolean | undefined;
  /**
   * With settleWhileStaging beside processing (a server database): a batch is staged READY for
   * processing, not settled, when processing has run dry (LoadProcessing.wantsRows; default true).
   * false: every batch is tried settled (the tests that look at each batch).
   */
  feedProcessing?: boolean | undefined;
  /**
   * Processing beside staging that found nothing to claim: the longest it waits before it claims
   * again (default 50 ms). A batch staging commits, or the end of staging, ends the wait at once.
   */
  idleWaitMs?: number | undefined;
  /** Called once before processing with the number of rows claimable then. */
  onProcessStart?: ((claimable: number) => void) | undefined;
}

export type LoadOptions = StageOptions & ProcessRunOptions;

/** What a `load` processed: processing's counts, and of its claimed and DONE rows those written DONE while staging (PGlite). */
export type LoadProcessCounts = ProcessCounts & {
  /** Rows a `load` on PGlite wrote DONE while staging them (LoadOptions.settleWhileStaging): no chunk of their own. */
  settled?: number;
};

export const DEFAULT_LOAD_OPTIONS = {
  encoding: 'utf-8' as FileEncoding,
  delimiter: ',',
  batchSize: 5000,
  chunkSize: 2000,
  /** Measured best on 2 cores: 1 → 2 workers took process from 21 s to 15 s per 1M rows (bench/RESULTS.md). */
  workers: 2,
  maxAttempts: 5,
  rowRetryBaseMs: 30_000,
  rowRetryMaxMs: 30 * 60_000,
  /** Long enough for any ordinary transaction to let go of a row, short enough that a row left locked costs a nightly run seconds. */
  lockWaitMs: 10_000,
  retry: DEFAULT_RETRY,
};

export interface FileReport {
  file: string;
  /** The load its rows belong to (an earlier run's when this run resumed or skipped it). */
  loadId: number;
  runId: number;
  /** Set when staging was skipped: the same file (sha256) was staged completely before. */
  skipped: string | null;
  /** Set when staging resumed after the checkpoint of an interrupted load. */
  resumedAt: StageCheckpoint | null;
  counts: FileStageCounts;
  /**
   * Statuses of this file's rows at the end of the run: the rows of its load, and the rows of
   * the file identical to a row that was DONE already (`unchangedDone`), as DONE.
   */
  tally: StatusTally;
  /**
   * Rows of the file identical to a row DONE when it was staged: left untouched, so they stay
   * with the load that made them DONE (counted in `tally.DONE`). For a skipped file: the rows
   * of the load that staged it which are held by another load now.
   */
  unchangedDone: number;
  stoppedAt: { line: number; message: string } | null;
  /** The load profile the file was read with (absent: the built-in format). */
  profile?: { name: string; sha256: string };
  /** Lines the profile discarded (`when`, `comment`, `skip_lines`), this run: counted apart, never errors. */
  discarded?: number;
  /**
   * The file at its path is not all this run loaded: it grew past the bytes read (loaded its first
   * S bytes) or was replaced by another file. Left in the inbox, said in `notRead`, exit 2.
   */
  leftInInbox?: string;
  /** Of those, the lines `when` discarded (the hint after a file whose every line was discarded names the rule). */
  discardedByWhen?: number;
  /** Its control totals (a profile's `control:`), checked on the whole file before it was staged. */
  control?: ControlOutcome;
  /** Its control totals differ (on_mismatch: hold): its rows stay HELD until `accept` (exit 1). */
  controlHeld?: true;
  /** Where a file held for its control totals was moved (--failed-dir, with its note). */
  controlMovedTo?: string;
  /** Its control totals differ, and an operator let its load through (`accept`): loaded as any load. */
  controlAccepted?: true;
}

export interface LoadReport {
  command: 'load' | 'stage';
  files: FileReport[];
  process: LoadProcessCounts | null;
  elapsedMs: number;
  stageMs: number;
  processMs: number;
  /** Why the run stopped early, if it did (exit code 1). */
  aborted: string | null;
  /** Files not read this run (in their quiet period, without their marker, changed or gone since they were listed): left where they are. */
  notRead: Array<{
    file: string;
    reason: string;
    named?: { quietEndsAt: number };
    /** Named on the command line, not found in a folder: the user asked for it, so not reading it is exit 2. */
    commandLine?: true;
  }>;
  /** Files that could not be read as order files (with --failed-dir), and where they were moved (null: not moved). */
  unreadable: Array<{ file: string; reason: string; movedTo: string | null }>;
  /** Files moved to --archive-dir. */
  archived: Array<{ file: string; movedTo: string }>;
  /** Zero-byte files (a day without orders): nothing to stage, no run of their own; archived with --archive-dir (movedTo). */
  empty: Array<{ file: string; movedTo: string | null }>;
  /** Entries of an inbox that are not read: not regular files (a FIFO, a dangling symlink, a directory named x.csv). */
  ignored: Array<{ file: string; reason: string }>;
  /**
   * Routed runs (`profiles`): files no profile's `match:` takes, not read: moved to --failed-dir
   * (movedTo) or left where they are (null).
   */
  unmatched?: Array<{ file: string; reason: string; movedTo: string | null }>;
  /** Routed runs (`profiles`): the profiles files were routed by, in their order. */
  profiles?: Array<{ name: string; sha256: string; match: string }>;
  /**
   * Rows waiting to be retried after a transient failure (of any load), and when the first is
   * due: always read by `load` (it exits 2 while any row waits), by `stage` when its rows wait.
   */
  retryWait: { count: number; nextDueAt: Date | null } | null;
  /** `load`: rows of earlier loads its processing took (READY, or RETRY_WAIT that was due), among `process.claimed`. */
  earlierLoadRows: number;
  /** HELD rows of earlier loads of this run's file names that this run did not release (src/pipeline/stranded-holds.ts): exit 2. */
  strandedHolds?: StrandedHold[];
  /**
   * The files were staged in this order, not the command line's: they hold the whole file set of
   * an earlier run stopped before its staging ended (`sets`: their ids), staged in its order, and
   * the files that resume a load an earlier run began go first (`resumed`, in the order those
   * loads began), with the files of each set staged again at its first load (`restaged`) (set-order.ts).
   */
  setOrder?: {
    paths: string[];
    sets: number[];
    resumed?: Array<{ path: string; loadId: number }>;
    restaged?: Array<{ setId: number; loadId: number; paths: string[] }>;
  };
  /** Files left where they are, not archived nor moved to --failed-dir: an unfinished file set still holds their loads (load-moves.ts): exit 2. */
  keptForSets?: KeptForSet[];
  /**
   * Files whose control totals (a profile's `control:`) are missing or cannot be read, refused
   * before staging (exit 1; moved to --failed-dir with a note: movedTo).
   */
  controlRefused?: Array<{ file: string; control: ControlOutcome; movedTo: string | null }>;
  exitCode: number;
}

/** A file of the run left where it is: moved under another name, no run could stage the set holding its load whole again. */
export interface KeptForSet {
  file: string;
  loadId: number;
  /** The base names of that set's files the run did not stage. */
  missing: string[];
  /** What the run said of it (report and log). */
  reason: string;
}

/** Rows still HELD after the run: of an earlier load of a file of this run's name, or of a load of this run that a set it did not stage whole holds. */
export interface StrandedHold {
  /** This run's file of that name. */
  file: string;
  loadId: number;
  rows: number;
  heldSince: Date;
  /** The earlier load's file, as its run recorded it. */
  heldFile: string;
  /**
   * A load of this run, held by the set of a run stopped while it staged: the base names of that
   * set's files this run did not stage (staging them all again releases the rows).
   */
  missing?: string[];
  /** The load is held for its control totals: neither a rerun nor `recover` releases it, only `accept`. */
  control?: true;
}

/** The database's state now, whatever run made it (the metrics file's gauges of the state). */
export interface DatabaseState {
  readAt: Date;
  /** Rows of order_stage by status. */
  rows: StatusTally;
  /** Since when the oldest row still to be loaded (READY, RETRY_WAIT or HELD) waits; null when none. */
  oldestWaitingSince: Date | null;
}

export interface ProcessReport {
  command: 'process';
  runId: number;
  process: ProcessCounts;
  /** Rows in RETRY_WAIT when processing ended (not claimable yet), and when the first is due. */
  retryWait: { count: number; nextDueAt: Date | null };
  elapsedMs: number;
  aborted: string | null;
  exitCode: number;
}
