/**
 * Builds an {@link Engine} from a driver and the slices an engine folder implements. The
 * transaction and the connection handling come from src/engine/transaction.ts, so that no
 * engine writes commit, rollback or release itself.
 */
import type { ClaimFence, Driver, Engine, EngineTx, FileClaim, FileClaims, Reports, RunJournal, Workspaces } from './contract.js';
import { inTransaction } from './transaction.js';

export interface EngineParts<C> {
  driver: Driver<C>;
  /** The transaction slices over one connection (staging, chunk, operator, journal). */
  transactionSlices(connection: C): EngineTx;
  journal: RunJournal;
  reports: Reports;
  workspaces: Workspaces;
  /** File claims, closed with the engine (their sessions are not the driver's). */
  claims: FileClaims & { close(): Promise<void> };
  /** Apply pending migrations (src/engine/migrations.ts with this engine's hooks). */
  migrate(): Promise<string[]>;
}

/** A granted claim whose `give` (the engine's way of giving it up, never throwing) runs once, however often it is released. */
export function grantedClaim(give: () => Promise<void>, fence: ClaimFence | null): FileClaim {
  let released = false;
  return {
    fence,
    release(): Promise<void> {
      if (released) return Promise.resolve();
      released = true;
      return give();
    },
  };
}

export function assembleEngine<C>(parts: EngineParts<C>): Engine {
  const { driver, journal, reports, workspaces, claims } = parts;
  const engine: Engine = {
    kind: driver.kind,
    capabilities: driver.capabilities,
    migrate: () => parts.migrate(),
    transaction: (fn, options) => inTransaction(driver, (connection) => fn(parts.transactionSlices(connection)), options),
    classifyError: (error) => driver.classifyError(error),
    close: async () => {
      await claims.close();
      await driver.close();
    },

    startRun: (run) => journal.startRun(run),
    finishRun: (runId, status, counts, message) => journal.finishRun(runId, status, counts, message),
    stagingHistory: (file) => journal.stagingHistory(file),
    runningRuns: () => journal.runningRuns(),

    listRuns: (limit) => reports.listRuns(limit),
    listRunEvents: (runIds) => reports.listRunEvents(runIds),
    statusReport: () => reports.statusReport(),
    loadRuns: (filter) => reports.loadRuns(filter),
    retryWaitSummary: () => reports.retryWaitSummary(),
    tallyLoads: (loadIds) => reports.tallyLoads(loadIds),
    tallyBatch: (batchId) => reports.tallyBatch(batchId),
    listErrorRows: (filter) => reports.listErrorRows(filter),
    listRejectedLines: (filter) => reports.listRejectedLines(filter),
    claimableCount: () => reports.claimableCount(),
    heldLoads: () => reports.heldLoads(),
    pageErrorRows: (filter) => reports.pageErrorRows(filter),
    rowHistory: (stageId) => reports.rowHistory(stageId),

    benchRunInLoaderHistory: workspaces.benchRunInLoaderHistory,
    createWorkspace: (name) => workspaces.createWorkspace(name),
    dropWorkspace: (name) => workspaces.dropWorkspace(name),

    claimFile: (key) => claims.claimFile(key),
  };
  if (driver.cancelRunning !== undefined) {
    engine.cancelRunning = async () => {
      await driver.cancelRunning?.();
    };
  }
  return engine;
}
