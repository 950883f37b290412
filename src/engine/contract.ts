/**
 * The engine contract, in slices that match who uses them (docs/ARCHITECTURE.md, "Engines").
 *
 * An engine is a folder under src/engine/<name>/ that implements:
 * - a {@link Driver} over its own connection type: check out, begin, commit, rollback,
 *   release (discarding a broken connection), classify an error, close — plus capability flags;
 * - the four transaction slices ({@link StagingTx}, {@link ChunkTx}, {@link OperatorTx},
 *   {@link JournalTx}) as factories over one connection;
 * - the connection-level slices ({@link RunJournal}, {@link Reports}, {@link Workspaces});
 * - the hooks of the one migration runner (src/engine/migrations.ts).
 * src/engine/assemble.ts puts them together into an {@link Engine}; the transaction logic
 * (commit, rollback, discard on a fatal error) is written once, in src/engine/transaction.ts.
 *
 * Each pipeline module asks for the slices it uses and nothing else (a {@link Transactor} over
 * the transaction slices it needs, plus the connection-level methods it calls).
 */
import type {
  LoadRunInfo,
  ChunkFinalization,
  ClaimQuery,
  ClaimedRow,
  ControlHeldRows,
  EngineKind,
  ErrorLogInput,
  ErrorPageFilter,
  ErrorRowReport,
  FailureKind,
  FileIdentity,
  FileLayout,
  HeldLoad,
  HoldSetFile,
  LoadPlace,
  InDatabaseChunk,
  InDatabaseChunkQuery,
  KeysetWindow,
  LatestRawRecord,
  ManualChange,
  MergeOptions,
  RejectedLine,
  RowFailure,
  RowHistory,
  RowSelector,
  RunCounts,
  RunEventInput,
  ControlHold,
  RunEventRecord,
  RunRecord,
  RunStart,
  RunStatus,
  StageBatchResult,
  StageInput,
  StageRowSnapshot,
  StageSettle,
  StagingHistory,
  StatusReport,
  StatusTally,
} from './types.js';

export interface EngineCapabilities {
  /** Several connections can work at once (server databases); false for embedded PGlite. */
  readonly concurrentConnections: boolean;
  /** Largest chunk the engine accepts (Oracle: NJS-141 past 65,535 batch errors). */
  readonly maxChunkSize: number;
  /** stageBatch can settle rows while staging (StageSettle): PostgreSQL (PGlite and server), not Oracle. */
  readonly settlesWhileStaging?: boolean;
}

export interface TransactionOptions {
  /**
   * The longest this transaction waits for any one lock another session holds, in
   * milliseconds; 0 waits for ever; undefined leaves the database's own setting. PostgreSQL:
   * `SET LOCAL lock_timeout`. Oracle DML has no such setting: the MERGE's target rows are
   * locked first with `FOR UPDATE WAIT n`, n in whole seconds rounded up
   * (src/engine/oracle/merge.ts lockAndMerge).
   */
  lockWaitMs?: number | undefined;
}

/**
 * The small part of an engine that talks to its driver: one connection at a time. Everything
 * else an engine does is written against the connection type `C` this hands out.
 */
export interface Driver<C> {
  readonly kind: EngineKind;
  readonly capabilities: EngineCapabilities;
  /** Check a connection out (of a pool, or the one embedded connection). */
  acquire(): Promise<C>;
  /** Start a transaction (a no-op where the driver starts one implicitly). */
  begin(connection: C, options: TransactionOptions | undefined): Promise<void>;
  commit(connection: C): Promise<void>;
  rollback(connection: C): Promise<void>;
  /** Give the connection back; with `broken`, it must never be handed out again. */
  release(connection: C, broken: Error | undefined): Promise<void>;
  /** Classify a thrown error: a chunk-level fatal one (connection lost, …) or anything else. */
  classifyError(error: unknown): FailureKind;
  /** Cancel the statements running on connections now checked out (absent: nothing can outlive the process). */
  cancelRunning?(): Promise<void>;
  /** Close every connection. */
  close(): Promise<void>;
}

/** Staging a file: upsert batches into order_stage, log the lines that could not be staged. */
export interface StagingTx {
  /**
   * Upsert into order_stage by source_key following the idempotency rule. `rows` is non-empty,
   * keys unique, in line order (new rows get their stage_id in that order). A row the database
   * refuses with a row-level error is left out and returned in `refused`; any other error
   * fails the batch. Oracle: a READ COMMITTED transaction that locks the rows it counts
   * (src/engine/oracle/staging.ts); laterLoadKeys may come first. With `settle` (only where
   * capabilities.settlesWhileStaging), the rows processing would merge may be written DONE and
   * merged into orders in this transaction (StageBatchResult.settled says how many).
   */
  stageBatch(loadId: number, rows: StageInput[], settle?: StageSettle): Promise<StageBatchResult>;
  /** Append rows to order_bulk_error. */
  logErrors(rows: ErrorLogInput[]): Promise<void>;
  /**
   * After stageBatch, in its transaction: the rows of these keys that this load staged and that
   * processing could take (READY, RETRY_WAIT) become HELD (their key is on several lines of the
   * file: processing waits for its last line).
   */
  holdRows(loadId: number, sourceKeys: string[]): Promise<void>;
  /**
   * In the staging batch's transaction of a load begun before the run (resumed, or a file of a set
   * staged again), before stageBatch: the keys among these whose stage row a load begun after
   * `loadId` wrote (a greater load id, not one of `except`). Load order is the order in which
   * loads begin, so the file's lines of those keys are not staged. Absent: they are staged over
   * them (every engine here has it).
   */
  laterLoadKeys?(loadId: number, sourceKeys: string[], except?: number[]): Promise<string[]>;
  /** The HELD rows of these loads back to READY (RETRY_WAIT when next_attempt_at is set); returns how many. */
  releaseHeld(loadIds: number[]): Promise<number>;
  /**
   * A rerun that skips or resumes the file of load `loadId`: its rows processing could take
   * (READY, RETRY_WAIT) become HELD again, and its HELD rows are dated now; returns how many.
   */
  holdLoad(loadId: number): Promise<number>;
  /**
   * After stageBatch, in its transaction: whether the file's claim is still held by the claim's
   * own session. Once true, a run that takes the claim after it ended cannot read the file's
   * staging history before this transaction ends (it waits for it), so what this transaction
   * commits is in the history that run reads.
   */
  holdsFileClaim(fence: ClaimFence): Promise<boolean>;
}

/** The file sets of the runs that may hold rows (src/pipeline/load-holds.ts), in a transaction. */
export interface HoldSetsTx {
  /**
   * A run whose files repeat keys records its file set (their base names, in order) before its
   * first hold, as set `setId`; the file at `start.fileNo` holds load `start.loadId` already.
   */
  recordHoldSet(setId: number, fileNames: string[], start: { fileNo: number; loadId: number }): Promise<void>;
  /** The file at `fileNo` of set `setId` starts its run: the set holds load `loadId`. */
  joinHoldSet(setId: number, fileNo: number, loadId: number): Promise<void>;
  /** Every file of every set that holds one of these loads, by set and place. */
  holdSets(loadIds: number[]): Promise<HoldSetFile[]>;
  /** Every file of every recorded set, by set and place (read before a run stages). */
  allHoldSets(): Promise<HoldSetFile[]>;
  /** A run of part of set `setId` staged a file its own run had not begun: the run that completes the set stages it all again. */
  restageHoldSet(setId: number): Promise<void>;
  /**
   * Where these loads stand in load order, recorded before they stage a line; a load that has a
   * place already keeps it. Absent: only the run that begins such a load knows its place.
   */
  recordLoadPlaces?(places: LoadPlace[]): Promise<void>;
  /** The places recorded for the loads from `fromLoad` on, in load id order. */
  loadPlaces?(fromLoad: number): Promise<LoadPlace[]>;
  /**
   * These loads' HELD rows were released or given up: no set holds them any more. Then the
   * sets nothing waits on are deleted: `coveredSets` (sets a run staged whole: its own, or a
   * killed run's) and those holding no load whose run is not RUNNING.
   */
  endHoldSets(loadIds: number[], coveredSets: readonly number[]): Promise<void>;
}

/** Processing one chunk: claim, merge, finalize, all in one transaction. */
export interface ChunkTx {
  /** Claim up to `limit` claimable rows (READY, or RETRY_WAIT that is due) with row locks, SKIP LOCKED. */
  claimChunk(query: ClaimQuery): Promise<ClaimedRow[]>;
  /** MERGE rows into orders by source_key; returns the rows the database refused. Rows not returned are merged (pending commit). */
  mergeOrders(rows: ClaimedRow[], options: MergeOptions): Promise<RowFailure[]>;
  /** Write the chunk's statuses and error-log rows. */
  finalizeChunk(chunk: ChunkFinalization): Promise<void>;
  /**
   * Claim, MERGE and finalize DONE in one call where the engine can judge the plain rows itself
   * (PostgreSQL: sql/postgres/migrations/012_process_chunk.sql and 014_refusals_in_database.sql,
   * which also writes ERROR the rows the MERGE refused for good); null when nothing was claimable.
   * The rows it returns are still locked by the transaction, their statuses unwritten: the caller
   * validates, merges and finalizes them with the methods above. Absent: the caller claims.
   */
  processInDatabase?(query: InDatabaseChunkQuery): Promise<InDatabaseChunk | null>;
}

/** An operator's audited changes (retry with corrections, recover). */
export interface OperatorTx {
  /**
   * Lock the next ERROR rows that match (FOR UPDATE: waits for a chunk that holds one), in
   * stage_id order, the first `window.limit` after `window.afterStageId` (a few more when rows
   * became ERROR during the call). An empty selector matches every ERROR row.
   */
  lockErrorRows(selector: RowSelector, window: KeysetWindow): Promise<StageRowSnapshot[]>;
  /** The rows lockErrorRows would lock, read without locking anything (a dry run). */
  findErrorRows(selector: RowSelector, window: KeysetWindow): Promise<StageRowSnapshot[]>;
  /**
   * The ERROR rows the selector chooses in loads held for their control totals, by load: the rows
   * lockErrorRows and findErrorRows leave out (nothing of such a file is merged until `accept`).
   */
  controlHeldErrors(selector: RowSelector): Promise<ControlHeldRows[]>;
  /** Lock PROCESSING rows last updated before `olderThan` that no live transaction holds (SKIP LOCKED). */
  lockStaleProcessing(olderThan: Date): Promise<StageRowSnapshot[]>;
  /**
   * `recover`: lock the HELD rows of the loads that no RUNNING run stages and whose latest hold
   * is older than `olderThan` (SKIP LOCKED), for an audited release.
   */
  lockAbandonedHolds(olderThan: Date): Promise<StageRowSnapshot[]>;
  /** `accept`: a load's control hold (null: the load was never held for its control totals). */
  controlHold(loadId: number): Promise<ControlHold | null>;
  /** `accept`: lock the HELD rows of one load (FOR UPDATE), for the audited release. */
  lockControlHeld(loadId: number): Promise<StageRowSnapshot[]>;
  /**
   * Apply audited manual changes: new values and status (error fields and next_attempt_at
   * cleared), the attributes of the changes that carry them, one audit row each.
   */
  applyManualChanges(changes: ManualChange[]): Promise<void>;
  /** The raw text of the latest error-log row of each of these stage rows (rows without one are left out). */
  latestRawRecords(stageIds: number[]): Promise<LatestRawRecord[]>;
  /** The file layout each of these loads recorded when its staging started (loads without one are left out). */
  fileLayouts(loadIds: number[]): Promise<Map<number, FileLayout>>;
  /** The stored attributes (JSON text, null: none) of these stage rows, by stage_id (a correction of some of them). */
  rowAttributes(stageIds: number[]): Promise<Map<number, string | null>>;
}

/** Recording a run event in the same transaction as the work it describes. */
export interface JournalTx {
  /** Append an event to load_run_event. */
  addRunEvent(runId: number, event: RunEventInput): Promise<void>;
}

/** Everything one transaction can do. */
export type EngineTx = StagingTx & HoldSetsTx & ChunkTx & OperatorTx & JournalTx;

/** Runs `fn` in one transaction on one connection: COMMIT on success, ROLLBACK on throw. */
export interface Transactor<Tx> {
  transaction<T>(fn: (tx: Tx) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

/** The run journal: load_run rows and what the history says about a file. */
export interface RunJournal {
  startRun(run: RunStart): Promise<number>;
  finishRun(runId: number, status: RunStatus, counts: RunCounts, message: string | null): Promise<void>;
  /**
   * What the latest run of this identity (sha256, encoding, delimiter) that committed any staging
   * fact committed, or null: runs without a committed 'staged'/'staged_checkpoint' are passed over.
   */
  stagingHistory(file: FileIdentity): Promise<StagingHistory | null>;
  /** Runs still marked RUNNING. */
  runningRuns(): Promise<RunRecord[]>;
}

/** A claim on one file identity ({@link FileClaims}), held until released or until its session ends. */
export interface FileClaim {
  /** Give the claim up; never throws (a session that cannot say so is closed, which ends the claim). */
  release(): Promise<void>;
  /** What a staging batch checks the claim by (StagingTx.holdsFileClaim); null where no claim can end apart from the run (PGlite). */
  readonly fence: ClaimFence | null;
}

/** A held claim as a staging transaction checks it (StagingTx.holdsFileClaim). */
export interface ClaimFence {
  /** The claim's key (FileClaims.claimFile). */
  readonly key: string;
  /** PostgreSQL: the token of the claim session's mark (an advisory lock it holds while it lives). */
  readonly token?: number;
  /** Oracle: one round trip on the claim's session; rejects once that session is gone. */
  readonly ping?: () => Promise<void>;
}

/**
 * One run at a time per file identity, across processes and hosts (src/pipeline/file-claim.ts):
 * a run holds the claim of a file while it reads the file's staging history, decides to skip,
 * resume or stage it, and stages it. Held by a database session of its own, never a pooled
 * worker's, so that the database ends it with that session whatever ended the process (kill -9
 * included). A session holds at most one claim: a second claim takes another session.
 */
export interface FileClaims {
  /**
   * Claim `key` (a file identity's hash: 64 hex digits), waiting about a second at most while
   * another session holds it; null when one still does.
   */
  claimFile(key: string): Promise<FileClaim | null>;
}

/** Read-only reports: status, tallies, run history, error listings. */
export interface Reports {
  listRuns(limit: number): Promise<RunRecord[]>;
  listRunEvents(runIds: number[]): Promise<RunEventRecord[]>;
  statusReport(): Promise<StatusReport>;
  /**
   * The file and start of loads (a load's id is the run_id of the run that started it): those of
   * `loadIds`, and with `since` every run started since then; in run_id order.
   */
  loadRuns(filter: { loadIds: readonly number[]; since: Date | null }): Promise<LoadRunInfo[]>;
  /** Rows in RETRY_WAIT and when the first is due (statusReport's summary, without its counts per load). */
  retryWaitSummary(): Promise<StatusReport['retryWait']>;
  /** Counts by status of the rows whose last staging load is one of `loadIds`. */
  tallyLoads(loadIds: number[]): Promise<StatusTally>;
  /** What a chunk committed, by its batch_id (after a lost COMMIT reply): counts by status and its last stage_id. */
  tallyBatch(batchId: string): Promise<{ tally: StatusTally; lastStageId: number | null }>;
  /** ERROR rows with their latest error, in stage_id order; with afterStageId, only rows past it (one page of a keyset walk). */
  listErrorRows(filter: {
    loadIds?: number[] | undefined;
    errorCodes?: string[] | undefined;
    limit: number;
    afterStageId?: number | undefined;
  }): Promise<ErrorRowReport[]>;
  /** Lines rejected without a stage row, in error_id order; with afterErrorId, only rows past it. */
  listRejectedLines(filter: {
    loadIds?: number[] | undefined;
    errorCodes?: string[] | undefined;
    limit: number;
    afterErrorId?: number | undefined;
  }): Promise<RejectedLine[]>;
  /** Rows claimable now (READY, or RETRY_WAIT that is due): the total shown by progress. */
  claimableCount(): Promise<number>;
  /** The loads that have HELD rows, in load order: how many, since when, their file, whether a running run stages them. */
  heldLoads(): Promise<HeldLoad[]>;
  /** The review page: ERROR rows with their latest error, newest first (stage_id descending), one keyset page. */
  pageErrorRows(filter: ErrorPageFilter): Promise<ErrorRowReport[]>;
  /** The review page's one row: the stage row with its latest error (null: no such row), its error-log and audit rows. */
  rowHistory(stageId: number): Promise<RowHistory>;
}

/**
 * `bench` works in a workspace of its own, never in the loader's tables: create it with the
 * loader's tables (a schema on PostgreSQL; the tables under a name prefix on Oracle), and make
 * it this engine's scope until dropped. An engine that cannot isolate a workspace refuses (a
 * UserError).
 */
export interface Workspaces {
  /**
   * Whether the bench's own run (a `load_run` row, one event per case) goes to the loader's run
   * history, which then has to be migrated first. PostgreSQL: yes. Oracle: no — there the bench
   * sends no statement at all to the loader's own tables (the loader's user may be loading real
   * data into them); its cases are in its report and its log.
   */
  readonly benchRunInLoaderHistory: boolean;
  /**
   * Returns the leftover workspaces of dead bench runs that it dropped first (one line each,
   * for the log); an engine without such a sweep returns none.
   */
  createWorkspace(name: string): Promise<{ dropped: string[] }>;
  /** Drop the workspace and everything in it; the engine is back on the loader's tables. */
  dropWorkspace(name: string): Promise<void>;
}

/** A whole engine, as src/engine/assemble.ts builds it from a driver and the slices. */
export interface Engine extends Transactor<EngineTx>, RunJournal, Reports, Workspaces, FileClaims {
  readonly kind: EngineKind;
  readonly capabilities: EngineCapabilities;
  /** Apply pending migrations; returns the names applied (empty when up to date). Safe to run concurrently and repeatedly. */
  migrate(): Promise<string[]>;
  /**
   * Cancel the statements running on this engine's connections now (a second SIGINT, before the
   * process exits): a backend blocked on a lock would otherwise keep waiting, holding the
   * chunk's row locks, after our end of the connection is gone. Absent where nothing can
   * outlive the process (PGlite) or it is not implemented.
   */
  cancelRunning?(): Promise<void>;
  /**
   * Refresh the planner's statistics of order_stage after a staging phase (PostgreSQL and PGlite:
   * `ANALYZE order_stage`). Without them, a freshly staged table looks nearly empty and the
   * status and tally queries walk an index over every row (bench/RESULTS.md, run 10). Absent
   * where the database keeps its statistics itself.
   */
  refreshStageStatistics?(): Promise<void>;
  /** Classify a thrown error: a chunk-level fatal one (connection lost, …) or anything else. */
  classifyError(error: unknown): FailureKind;
  close(): Promise<void>;
}
