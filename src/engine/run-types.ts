/** The run journal's types: a run's start, record, counts and events, and what a file's staging history says (src/engine/contract.ts, RunJournal). */

/** What the run history says about a file (by sha256): for skip and resume (docs/ARCHITECTURE.md, section 2, step 2). */
/** What makes two staged files the same file: their bytes (sha256), read the same way. */
export interface FileIdentity {
  sha256: string;
  encoding: string;
  delimiter: string;
  /** The sha256 of the load profile it is read with; absent or 'builtin': the built-in format (src/input/profile/builtin.ts). */
  profile?: string | undefined;
}

/**
 * What was committed of a file's staging: the facts of the latest run of its identity that
 * committed one (a 'staged' or 'staged_checkpoint' event). A later run that committed none (its
 * row inserted and nothing more, or stopped before its first batch) does not hide it.
 */
export interface StagingHistory {
  /** The run whose committed events these are (not necessarily the load: a resumed run continues an earlier load). */
  runId: number;
  /** The load (run id) that staged it. */
  loadId: number;
  /** Staging of that load completed (a 'staged' event). */
  staged: boolean;
  /**
   * The last committed checkpoint of the staging, with the counts staged up to it; `stoppedAt`
   * when the file could not be read past a line (a structural CSV error).
   */
  checkpoint: { line: number; byte: number | null; counts: unknown; stoppedAt: { line: number; message: string } | null } | null;
  /**
   * How that run read the file (from its 'invoked' event): with another encoding or delimiter
   * the same bytes are another file. Runs recorded before these were kept read UTF-8 and ','.
   */
  readAs: { encoding: string; delimiter: string; profile?: string };
}

export interface RunStart {
  command: string;
  fileName: string | null;
  fileSize: number | null;
  fileSha256: string | null;
  host: string;
  pid: number;
}

export type RunStatus = 'RUNNING' | 'COMPLETED' | 'FAILED';

export interface RunCounts {
  [name: string]: number;
}

/** The ERROR rows of one load held for its control totals that a `retry`'s selector chose and left ERROR. */
export interface ControlHeldRows {
  loadId: number;
  rows: number;
  /** An unfinished hold set (a killed multi-file run's, load_hold_set) holds the load too, or only it. */
  set?: true;
  /** false: the load is not held for its control totals (only a set holds it). */
  control?: false;
}

export interface RunEventInput {
  event: string;
  detail?: Record<string, unknown> | undefined;
}

/** A load's file and start (`status`). */
export interface LoadRunInfo {
  loadId: number;
  fileName: string | null;
  startedAt: Date;
}

/** A run as recorded: what its start said, with its id, status, times, counts and message. */
export interface RunRecord extends RunStart {
  runId: number;
  status: RunStatus;
  startedAt: Date;
  finishedAt: Date | null;
  counts: RunCounts | null;
  message: string | null;
}

export interface RunEventRecord {
  runId: number;
  seq: number;
  event: string;
  detail: Record<string, unknown> | null;
  at: Date;
}
