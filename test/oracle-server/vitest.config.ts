import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { COMPOSE_ORACLE } from './compose-target.js';
import { ONE_SCHEMA_ENV } from '../support/pg-one-schema.js';
import { ORACLE_JOB_TEST_FILES } from '../support/oracle-test-statements.js';

/**
 * The tests against a real Oracle server: the integration suite's Oracle target (test/integration,
 * on when ORDER_LOADER_TEST_ORACLE is set) and the Oracle survival subset (survival.test.ts).
 *
 *   npm run test:oracle                                          (--mode server)
 *     ORDER_LOADER_TEST_ORACLE defaults to compose.yaml's database; waits until it accepts
 *     the test user (wait-for-oracle.ts), then runs the tests.
 *   npx vitest run --config test/oracle-server/vitest.config.ts (no mode)
 *     only what the environment names: without ORDER_LOADER_TEST_ORACLE every test is skipped.
 *   npx vitest list --config test/oracle-server/vitest.config.ts --mode list
 *     names every test the Oracle job runs (vitest list leaves skipped tests out): a placeholder
 *     ORDER_LOADER_TEST_ORACLE that nothing connects to (listing runs no test) and no wait.
 *
 *   ORDER_LOADER_TEST_PG=postgres://postgres@127.0.0.1:5432/test npx vitest run --config test/oracle-server/vitest.config.ts --mode postgres-one-schema
 *     the same files' tests on server PostgreSQL, its databases given out as the Oracle target
 *     gives its one schema (test/support/pg-one-schema.ts): the Oracle job's harness without Oracle.
 *
 * Only tests named "… oracle …" run (the integration suites are named "… on <target>"): the
 * PGlite and PostgreSQL runs of the same files belong to `npm test`. One file at a time: the
 * Oracle target is one schema, dropped and re-created by each test.
 */
export default defineConfig(({ mode }) => {
  if (mode === 'server') {
    // set here, in the main process: the global setup reads them, and the test workers inherit them
    if ((process.env.ORDER_LOADER_TEST_ORACLE ?? '') === '') {
      process.env.ORDER_LOADER_TEST_ORACLE = COMPOSE_ORACLE.url;
      process.env.ORDER_LOADER_TEST_ORACLE_PASSWORD ??= COMPOSE_ORACLE.password;
    }
  }
  const oneSchema = mode === 'postgres-one-schema';
  if (oneSchema) {
    if ((process.env.ORDER_LOADER_TEST_PG ?? '') === '') throw new Error('--mode postgres-one-schema needs ORDER_LOADER_TEST_PG');
    process.env[ONE_SCHEMA_ENV] = '1';
    delete process.env.ORDER_LOADER_TEST_ORACLE;
  }
  const listing = mode === 'list';
  if (listing) {
    process.env.ORDER_LOADER_TEST_ORACLE = 'oracle://list@127.0.0.1:1/LISTING_ONLY';
    process.env.ORDER_LOADER_TEST_ORACLE_PASSWORD = '';
  }
  return {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    test: {
      include: oneSchema
        ? ORACLE_JOB_TEST_FILES.filter((f) => f.startsWith('test/integration/'))
        : ['test/integration/**/*.test.ts', 'test/oracle-server/**/*.test.ts'],
      testNamePattern: oneSchema ? /\bpostgres\b/ : /\boracle\b/,
      // the run's temporary folder (inject('testTempRoot')) and templates, as for npm test; then the wait
      globalSetup:
        listing || oneSchema ? ['test/support/global-setup.ts'] : ['test/support/global-setup.ts', 'test/oracle-server/wait-for-oracle.ts'],
      env: { ORDER_LOADER_TEST_ORACLE_SUITE: '1' },
      fileParallelism: false,
      pool: 'forks',
      testTimeout: 300_000,
      hookTimeout: 300_000,
    },
  };
});
