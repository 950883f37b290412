/**
 * The PostgreSQL engine, over node-postgres (server) or PGlite (embedded): the same SQL
 * (sql/postgres/) and the same slices; the connector is the only difference.
 */
import { assembleEngine } from '../assemble.js';
import type { Engine } from '../contract.js';
import { runMigrations } from '../migrations.js';
import { chunkSlice } from './chunk.js';
import { pgFileClaims } from './file-claims.js';
import { pgDriver, withSessionOf } from './driver.js';
import { sqlQuery } from './rows.js';
import { journalSlice, runJournal } from './journal.js';
import { migrationHooks } from './migrations.js';
import { operatorSlice } from './operator.js';
import { reports } from './reports.js';
import type { PgConnector } from './session.js';
import { StageCopyPolicy, stagingSlice } from './staging.js';
import { holdSetsSlice } from './hold-sets.js';
import { workspaces } from './workspaces.js';

/**
 * `ORDER_LOADER_STAGE_COPY=off` stages every batch with order_loader_stage_batch alone, as
 * before COPY staging (a way back should COPY ever misbehave; the tests compare both ways).
 */
export function stageCopyEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.ORDER_LOADER_STAGE_COPY !== 'off';
}

/**
 * `ORDER_LOADER_PROCESS_IN_DATABASE=off` processes every chunk by claiming its rows to the client
 * (claim, validateOrder, MERGE, finalize), as before order_loader_process_chunk (migration 012):
 * a way back, and what the tests compare it with.
 */
export function processInDatabaseEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.ORDER_LOADER_PROCESS_IN_DATABASE !== 'off';
}

/**
 * `ORDER_LOADER_SETTLE=off`: a `load` stages every row READY and processing writes it DONE, as
 * before settling while staging (migration 015): a way back, and the benchmark's "before"
 * (bench/RESULTS.md, run 27).
 */
export function settleWhileStagingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.ORDER_LOADER_SETTLE !== 'off';
}

export function createPostgresEngine(connector: PgConnector): Engine {
  const copyPolicy = new StageCopyPolicy(stageCopyEnabled());
  const inDatabase = processInDatabaseEnabled();
  const driver = pgDriver(connector, settleWhileStagingEnabled());
  const withSession = withSessionOf(driver);
  const migrate = () => runMigrations(migrationHooks(driver));
  const engine = assembleEngine({
    driver,
    transactionSlices: ({ session }) => ({
      ...stagingSlice(session, copyPolicy),
      ...holdSetsSlice(session),
      ...chunkSlice(session, inDatabase),
      ...operatorSlice(session),
      ...journalSlice(session),
    }),
    journal: runJournal(withSession),
    reports: reports(withSession),
    workspaces: workspaces(withSession, connector, migrate),
    claims: pgFileClaims(connector),
    migrate,
  });
  engine.refreshStageStatistics = () =>
    withSession(async (s) => {
      await s.query(sqlQuery('analyze_stage'));
      // the block ranges staging appended, summarized for tally_loads (migration 009)
      await s.query(sqlQuery('summarize_stage'));
    });
  return engine;
}
