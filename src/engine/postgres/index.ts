/**
 * The PostgreSQL engine, over node-postgres (server) or PGlite (embedded): the same SQL
 * (sql/postgres/) and the same slices; the connector is the only difference.
 */
import { assembleEngine } from '../assemble.js';
import type { Engine } from '../contract.js';
import { runMigrations } from '../migrations.js';
import { chunkSlice } from './chunk.js';
import { pgDriver, withSessionOf } from './driver.js';
import { sqlQuery } from './rows.js';
import { journalSlice, runJournal } from './journal.js';
import { migrationHooks } from './migrations.js';
import { operatorSlice } from './operator.js';
import { reports } from './reports.js';
import type { PgConnector } from './session.js';
import { stagingSlice } from './staging.js';
import { workspaces } from './workspaces.js';

export function createPostgresEngine(connector: PgConnector): Engine {
  const driver = pgDriver(connector);
  const withSession = withSessionOf(driver);
  const migrate = () => runMigrations(migrationHooks(driver));
  const engine = assembleEngine({
    driver,
    transactionSlices: ({ session }) => ({
      ...stagingSlice(session),
      ...chunkSlice(session),
      ...operatorSlice(session),
      ...journalSlice(session),
    }),
    journal: runJournal(withSession),
    reports: reports(withSession),
    workspaces: workspaces(withSession, connector, migrate),
    migrate,
  });
  engine.refreshStageStatistics = () =>
    withSession(async (s) => {
      await s.query(sqlQuery('analyze_stage'));
    });
  return engine;
}
