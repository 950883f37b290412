/**
 * The engine interface: everything the pipeline needs from a database, and nothing more.
 *
 * The pipeline (src/pipeline/) is written once against these types. Each engine is a folder
 * under src/engine/<name>/ and is the only code that imports its driver. Values cross this
 * boundary as strings in canonical form (amount "1200.00"-like decimal text, order_date
 * "YYYY-MM-DD", customer_id decimal digits) so that no engine has to guess at floating point.
 */

export type EngineKind = 'pglite' | 'postgres' | 'oracle';

export const PROCESS_STATUSES = ['READY', 'PROCESSING', 'DONE', 'ERROR', 'RETRY_WAIT', 'HELD'] as const;
export type ProcessStatus = (typeof PROCESS_STATUSES)[number];

export type ErrorPhase = 'PARSE' | 'VALIDATE' | 'MERGE';

/** The five business columns of an order, as text. `null` is a missing value. */
export interface OrderValues {
  customerId: string | null;
  orderDate: string | null;
  amount: string | null;
  currency: string | null;
}

/** One row to upsert into order_stage (already de-duplicated within its batch). */
export interface StageInput extends OrderValues {
  sourceKey: string;
  lineNo: number;
  /** Set when the line could not be parsed: the row is staged as ERROR with null values. */
  parseError?: { code: string; message: string } | undefined;
  /**
   * The line's other columns kept (a profile's `extra`): canonical JSON text of an object of
   * column name → text (src/input/profile/attributes.ts); absent or null: none (the built-in format).
   */
  attributes?: string | null | undefined;
}

export interface StageBatchCounts {
  /** New source_keys. */
  inserted: number;
  /** Existing rows whose values changed (correction of ERROR / amendment of DONE) → READY. */
  updated: number;
  /** Rows identical to what the stage holds: untouched. */
  unchanged: number;
  /** Of the unchanged rows, how many are in ERROR (a reload of a still-wrong row). */
  unchangedError: number;
  /** Rows that a previous batch of the same load had already staged (repeated source_key). */
  repeatedInLoad: number;
}

/**
 * A row of a staging batch that the database refused (a value it cannot store, a constraint):
 * it was not staged; the other rows of the batch were. `code` is the database's (SQLSTATE,
 * ORA-nnnnn), `message` its message without any bind value.
 */
export interface StageRefusal {
  lineNo: number;
  sourceKey: string;
  code: string;
  message: string;
}

/** What staging one batch did: its counts (refused rows are in none of them) and the refused rows, in line order. */
export interface StageBatchResult extends StageBatchCounts {
  refused: StageRefusal[];
  /**
   * How the engine wrote the batch, where it has more than one way (PostgreSQL: `copy`, every
   * key new, or `function`, order_loader_stage_batch; Oracle: `direct`, an array insert into
   * order_stage first, or `batch-table`, through the session's order_stage_batch alone). Tests
   * and logs only: the counts mean the same either way.
   */
  by?: 'copy' | 'function' | 'direct' | 'batch-table';
  /** With `function`: the SQLSTATE that made the COPY of this batch give way to the function. */
  copyGaveWayOn?: string;
  /** With `direct` (Oracle): the lines the direct insert left to the batch table (keys staged already, refused values). */
  fellBack?: number;
  /** Rows the batch wrote DONE and merged into orders as it staged them (StageSettle; PGlite). */
  settled?: number;
  /**
   * Why the batch was staged as before after settling was tried: the SQLSTATE the COPY or the
   * MERGE raised, or 'check' when order_loader_settle_staged refused a row (logs and tests).
   */
  settleGaveWayOn?: string;
}

/**
 * Settle while staging (`load` on PostgreSQL; migrations 015 and 016): the batch's rows that
 * processing would merge are written DONE and merged in the staging transaction, instead of READY
 * and then claimed, merged and updated DONE by processing. The engine checks each such row
 * against processing's rules and stages the batch as before when one fails.
 */
export interface StageSettle {
  /** The batch_id of the rows settled (a chunk's is `<run>-<n>`). */
  batchId: string;
  /** Keys never settled: those on more than one line of the run's files (src/input/repeated-keys.ts). */
  except?: { has(key: string): boolean } | undefined;
}

/** A row claimed for processing, locked by the chunk's transaction. */
export interface ClaimedRow extends OrderValues {
  stageId: number;
  sourceKey: string;
  /** Processing attempts so far, every one (attempt_count: never reset). */
  attemptCount: number;
  /**
   * Transient failures since the row's values last changed or an operator last retried it
   * (transient_failures): what --max-attempts bounds.
   */
  transientFailures: number;
  loadId: number | null;
  lineNo: number | null;
}

export interface ClaimQuery {
  /** Keyset cursor: only rows with stage_id > afterStageId. */
  afterStageId: number;
  limit: number;
  /** Restrict to one load (used by `load`; `process` takes any load). */
  loadIds?: number[] | undefined;
}

/** Kinds of failure, by their consequence. */
export type FailureKind = 'rejected' | 'transient' | 'fatal';

/** A row that the database refused during the MERGE into orders. */
export interface RowFailure {
  stageId: number;
  /** The database's own code: SQLSTATE on PostgreSQL, ORA-NNNNN / NJS-NNN on Oracle. */
  code: string;
  message: string;
  kind: Exclude<FailureKind, 'fatal'>;
}

export interface MergeOptions {
  /**
   * Hint for failure isolation: the size of the blocks to apply separately when failures
   * are expected. `rows.length` (or more) means "try the whole chunk at once".
   */
  isolationBlock: number;
}

/** ChunkTx.processInDatabase: the claim's query, the MERGE's isolation hint, the chunk's batch id. */
export interface InDatabaseChunkQuery extends ClaimQuery, MergeOptions {
  batchId: string;
}

/**
 * A chunk the database processed itself (ChunkTx.processInDatabase): the claimed rows that
 * plainly meet the business rules were merged, and those merged are DONE with the chunk's batch
 * id; the rest comes back for the client to decide, in the same transaction.
 */
export interface InDatabaseChunk {
  /** Rows claimed. */
  claimed: number;
  /** The highest stage_id claimed (the keyset position after this chunk). */
  lastStageId: number;
  /** Rows the MERGE took (done + rejected + refused). */
  merged: number;
  /**
   * Rows the MERGE refused for good (a SQLSTATE that is not transient), written ERROR with their
   * error-log row by the call itself, as the client would have written them (attempt_count + 1,
   * transient_failures unchanged, phase MERGE, the database's SQLSTATE and message).
   */
  rejected: number;
  /** Rows claimed, per load. */
  loads: Array<{ loadId: number | null; rows: number }>;
  /** Claimed rows the database did not take as plainly valid: validateOrder judges them. */
  toValidate: ClaimedRow[];
  /** Rows the MERGE refused with a transient failure, each with the database's failure: the client decides RETRY_WAIT or ERROR. */
  refused: Array<{ row: ClaimedRow; failure: RowFailure }>;
}

/** What to write for each row of a chunk at the end of its transaction. */
export interface RowOutcome {
  stageId: number;
  sourceKey: string;
  status: 'DONE' | 'ERROR' | 'RETRY_WAIT';
  /** attempt_count after this attempt (every processing attempt; the error log's attempt_no). */
  attemptNo: number;
  /** transient_failures after this attempt (one more than before for a transient failure). */
  transientFailures: number;
  loadId: number | null;
  lineNo: number | null;
  error?: { phase: ErrorPhase; code: string; message: string } | undefined;
  /** For RETRY_WAIT. */
  nextAttemptAt?: Date | undefined;
}

export interface ChunkFinalization {
  batchId: string;
  /** stage_ids that ended DONE (the common case: bound as one array). */
  done: number[];
  /** Rows that ended ERROR or RETRY_WAIT; each gets an error-log row. */
  failed: RowOutcome[];
}

/** An error-log row written outside the process phase (parse rejections). */
export interface ErrorLogInput {
  stageId: number | null;
  sourceKey: string | null;
  loadId: number | null;
  lineNo: number | null;
  batchId: string | null;
  attemptNo: number | null;
  phase: ErrorPhase;
  code: string;
  message: string;
  rawRecord: string | null;
  /**
   * sourceKey is the rejected line's own key, logged for the `errors` export only: the line has
   * no stage row, and none is looked up by it (a stage row of that key is another line's).
   */
  keyOnly?: boolean | undefined;
}

/** A stage row as an operator sees it (retry, recover, errors export). */
export interface StageRowSnapshot extends OrderValues {
  stageId: number;
  sourceKey: string;
  status: ProcessStatus;
  attemptCount: number;
  loadId: number | null;
  lineNo: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  updatedAt: Date;
}

/** A load's control hold (its latest 'control_held' event's detail) and whether `accept` let it through. */
export interface ControlHold {
  detail: Record<string, unknown> | null;
  accepted: boolean;
}

/** The HELD rows of one load (src/engine/contract.ts, Reports.heldLoads). */
export interface HeldLoad {
  loadId: number;
  rows: number;
  /** When the latest of them was held (a rerun that skips or resumes the load holds them again). */
  heldSince: Date;
  /** The file of the load's first run (null: none recorded). */
  fileName: string | null;
  /** A RUNNING run stages the load now: its holds end with that run's staging. */
  staging: boolean;
  /** Held for its control totals (a profile's `control:`): only `accept` releases it. */
  control?: boolean;
}

/**
 * Where a load stands in load order (load_place, migration 021; src/pipeline/load-places.ts):
 * after load `began`, at `place` (0: at `began` itself). A load with none recorded stands at
 * (its id, 0). A file of a set staged again stands at the set's first load, at its place in the
 * set (from 1). Positions compare as (began, place).
 */
export interface LoadPlace {
  loadId: number;
  began: number;
  place: number;
}

/** One file of the set of a run that may hold rows (load_hold_set; src/pipeline/load-holds.ts). */
export interface HoldSetFile {
  setId: number;
  fileNo: number;
  /** The file's base name. */
  fileName: string;
  /** The load the set holds through this file; null: its run did not start, or that load was released. */
  loadId: number | null;
  /** A run of part of the set staged a file its own run had not begun: the run that completes it stages every file again. */
  restage: boolean;
}

/** One step of a keyset walk in stage_id order: at most `limit` rows with stage_id > afterStageId. */
export interface KeysetWindow {
  afterStageId: number;
  limit: number;
}

/** Which rows a manual operation is about; the conditions combine with AND. */
export interface RowSelector {
  stageIds?: number[] | undefined;
  sourceKeys?: string[] | undefined;
  errorCodes?: string[] | undefined;
  loadIds?: number[] | undefined;
}

/** One audited manual status change (retry with corrections, recover). */
export interface ManualChange {
  stageId: number;
  sourceKey: string;
  action: 'RETRY' | 'RECOVER' | 'ACCEPT';
  oldStatus: ProcessStatus;
  newStatus: ProcessStatus;
  /** The row's business values after the change (unchanged fields included). */
  values: OrderValues;
  /** The row's attributes after the change (canonical JSON text; null: none); absent: left as they are. */
  attributes?: string | null | undefined;
  /** JSON text of the changed fields before and after (status included). */
  oldValues: string;
  newValues: string;
  operator: string;
  reason: string;
}

export interface StatusCount {
  loadId: number | null;
  status: ProcessStatus;
  count: number;
}

export interface StatusReport {
  counts: StatusCount[];
  oldestReady: { stageId: number; sourceKey: string; stagedAt: Date } | null;
  retryWait: { count: number; nextDueAt: Date | null };
  /**
   * Since when the oldest row still to be loaded (READY or RETRY_WAIT) waits: the start of the
   * run that last staged it; null when none waits.
   */
  oldestWaitingSince: Date | null;
}

/** Counts of the rows of some loads, by status (for exit codes and summaries). */
export type StatusTally = Partial<Record<ProcessStatus, number>>;

export type {
  ControlHeldRows,
  FileIdentity,
  LoadRunInfo,
  RunCounts,
  RunEventInput,
  RunEventRecord,
  RunRecord,
  RunStart,
  RunStatus,
  StagingHistory,
} from './run-types.js';
export type {
  AuditEntry,
  ErrorLogEntry,
  ErrorPageFilter,
  ErrorRowReport,
  FileLayout,
  LatestRawRecord,
  RejectedLine,
  RowHistory,
} from './review-types.js';

export type {
  ChunkTx,
  Driver,
  Engine,
  EngineCapabilities,
  EngineTx,
  JournalTx,
  OperatorTx,
  Reports,
  RunJournal,
  StagingTx,
  TransactionOptions,
  Transactor,
  Workspaces,
} from './contract.js';
