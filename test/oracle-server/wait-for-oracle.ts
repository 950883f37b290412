/**
 * vitest global setup of test/oracle-server/vitest.config.ts: before any Oracle test, wait until
 * the database accepts a connection as the test user and answers a query. A container reports
 * healthy once FREEPDB1 is open, which can be before APP_USER exists (ORA-01017 meanwhile),
 * and a first start of a non-faststart image takes minutes: retry with backoff (1 s doubling
 * to 10 s) until ORDER_LOADER_TEST_ORACLE_WAIT seconds (default 300) have passed, then fail
 * with the last error and what to look at. Without ORDER_LOADER_TEST_ORACLE: nothing to wait
 * for, the Oracle tests skip.
 */
import { parseDbUrl, redactSecrets } from '../../src/engine/db-url.js';
import { type OracleDbTarget, withOracleConnection } from '../support/oracle-target.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return redactSecrets((text.split('\n')[0] ?? text).replace(/\s*\(CONNECTION_ID=[^)]*\)/, ''));
}

/** One attempt: connect as the test user, SELECT 1 FROM dual, close. */
async function tryOnce(target: OracleDbTarget): Promise<void> {
  await withOracleConnection(
    target,
    async (connection) => {
      await connection.execute('SELECT 1 FROM dual', {}, { autoCommit: false });
    },
    20_000,
  );
}

export default async function waitForOracle(): Promise<void> {
  const db = process.env.ORDER_LOADER_TEST_ORACLE;
  if (db === undefined || db === '') {
    console.info(
      "order-loader: ORDER_LOADER_TEST_ORACLE is not set: the Oracle tests are skipped (npm run test:oracle runs them against compose.yaml's database)",
    );
    return;
  }
  const target = parseDbUrl(db, { ORDER_LOADER_DB_PASSWORD: process.env.ORDER_LOADER_TEST_ORACLE_PASSWORD ?? '' });
  if (target.kind !== 'oracle') throw new Error(`ORDER_LOADER_TEST_ORACLE must be an oracle:// URL (got ${db.split(':')[0] ?? ''}:…)`);
  const waitSeconds = Number(process.env.ORDER_LOADER_TEST_ORACLE_WAIT ?? 300);
  const limit = Number.isFinite(waitSeconds) && waitSeconds > 0 ? waitSeconds * 1000 : 300_000;
  const where = `${target.user}@${target.connectString}`;
  const started = Date.now();
  let delay = 1000;
  let last: string;
  for (let attempt = 1; ; attempt++) {
    try {
      await tryOnce(target);
      console.info(`order-loader: Oracle accepts ${where} (after ${Math.round((Date.now() - started) / 1000)} s, attempt ${attempt})`);
      return;
    } catch (error) {
      last = firstLine(error);
    }
    const elapsed = Date.now() - started;
    if (elapsed + delay > limit) break;
    console.info(
      `order-loader: waiting for Oracle at ${where}: ${last} (attempt ${attempt}, ${Math.round(elapsed / 1000)} s; retry in ${delay / 1000} s)`,
    );
    await sleep(delay);
    delay = Math.min(delay * 2, 10_000);
  }
  throw new Error(
    `Oracle at ${where} did not accept a connection within ${limit / 1000} s (ORDER_LOADER_TEST_ORACLE_WAIT). Last error: ${last}\n` +
      '  Is it running and healthy? docker compose ps; docker compose logs oracle\n' +
      '  ORA-01017: the user is not created yet, or ORDER_LOADER_TEST_ORACLE_PASSWORD is not its password;\n' +
      '  NJS-503 / ECONNREFUSED: nothing listens on that port; NJS-518 / ORA-12514: the service is not open yet.',
  );
}
