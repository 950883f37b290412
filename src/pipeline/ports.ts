/**
 * What each pipeline module needs of an engine: the slices of src/engine/contract.ts it calls,
 * and nothing else (docs/ARCHITECTURE.md, "Engines"). A whole Engine fits every one of them; a
 * test can hand a module a fake of just its slice.
 */
import type { ChunkTx, Engine, HoldSetsTx, JournalTx, OperatorTx, Reports, RunJournal, StagingTx, Transactor } from '../engine/contract.js';

/** withChunkRetry tells a transient failure from a final one through the engine. */
export type ErrorClassifier = Pick<Engine, 'classifyError'>;

/** run-record.ts: a load_run row, its events, its end. */
export type RunRecordPort = Transactor<JournalTx> & Pick<RunJournal, 'startRun' | 'finishRun'> & ErrorClassifier;

/** stage.ts: a batch, its error-log rows and its checkpoint event in one transaction. */
export type StagingPort = Transactor<StagingTx & JournalTx> & ErrorClassifier;

/** process.ts: chunks; after a lost COMMIT reply, what the chunk committed. */
export type ProcessingPort = Transactor<ChunkTx> & Pick<Reports, 'tallyBatch'> & Pick<Engine, 'capabilities'> & ErrorClassifier;

/** operations.ts, retry and recover: the operator's audited changes (recover: the holds it gives up end their sets' wait). */
export type OperatorPort = Transactor<OperatorTx & Pick<HoldSetsTx, 'endHoldSets'>>;

/** operations.ts, markAbandonedRuns: ends the runs whose process is gone. */
export type AbandonedRunsPort = Transactor<JournalTx> & Pick<RunJournal, 'runningRuns' | 'finishRun'>;

/** errors-export.ts: the error listings, and the file layouts to split raw lines by. */
export type ErrorExportPort = Transactor<Pick<OperatorTx, 'fileLayouts'>> & Pick<Reports, 'listErrorRows' | 'listRejectedLines'>;

/** load.ts: staging and processing, the run records, the reads that decide and report a run, and the file claims (file-claim.ts). */
export type LoadPort = Transactor<StagingTx & HoldSetsTx & ChunkTx & JournalTx & Pick<OperatorTx, 'controlHold'>> &
  Pick<RunJournal, 'startRun' | 'finishRun' | 'stagingHistory' | 'runningRuns'> &
  Pick<Reports, 'tallyBatch' | 'tallyLoads' | 'claimableCount' | 'retryWaitSummary' | 'heldLoads' | 'listRunEvents'> &
  Pick<Engine, 'capabilities' | 'classifyError' | 'refreshStageStatistics' | 'claimFile'>;

/** load.ts, runProcess: processing recorded as a run of its own (or of the `retry` that hands it on). */
export type ProcessRunPort = Transactor<ChunkTx & JournalTx> &
  Pick<RunJournal, 'startRun' | 'finishRun'> &
  Pick<Reports, 'tallyBatch' | 'claimableCount' | 'retryWaitSummary'> &
  Pick<Engine, 'capabilities' | 'classifyError'>;
