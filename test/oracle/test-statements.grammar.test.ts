/**
 * The statements the Oracle job's tests send to Oracle themselves (test/support/oracle-test-statements.ts:
 * db.sql in the shared integration tests, translated as oracle-query.ts translates them; the
 * invariants' queries; the Oracle server tests' own execute calls) must be Oracle SQL: each goes
 * through the PL/SQL grammar check of /work/shared/tools/plsql (check.sh, one statement per file),
 * together with the loader's own (every file of sql/oracle/queries as the engine sends it, every
 * statement of sql/oracle/migrations), in the same run of the checker.
 *
 * That checker needs a JDK, ANTLR 4.7 and a mirror of antlr/grammars-v4, built once into
 * ~/.cache/order-loader-plsql (its build.sh). CI has none of these: there the grammar test is
 * skipped and says why. ORDER_LOADER_PLSQL_CHECK names another check.sh.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { boundedWait } from '../../src/engine/oracle/merge.js';
import { oracleQuery, splitStatements } from '../../src/engine/oracle/sql-text.js';
import { listMigrations } from '../../src/sql-files.js';
import { reservedAliases } from '../support/oracle-reserved.js';
import { emptyingStatements, identityRestart, SHAPE_QUERY, TABLES_QUERY } from '../support/oracle-fresh.js';
import { ORACLE_LOADER_TABLES, oracleDropTable } from '../support/oracle-target.js';
import { clobMisuse, ORACLE_JOB_TEST_FILES, oracleJobTestStatements, type TestStatement } from '../support/oracle-test-statements.js';

/** The loader's own statements, as the engine sends them (comment lines stripped, one per file). */
function loaderStatements(): TestStatement[] {
  const queries = readdirSync('sql/oracle/queries')
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => ({ where: `sql/oracle/queries/${f}`, text: oracleQuery(f.replace(/\.sql$/, '')) }));
  const migrations = listMigrations('oracle').flatMap((m) =>
    splitStatements(m.sql).map((text, i) => ({ where: `sql/oracle/migrations/${m.name}.sql #${i + 1}`, text })),
  );
  // the lock statements as sent: the wait the engine sets in them (merge.ts boundedWait), NOWAIT
  // once nothing is left of the transaction's bound, WAIT n, or none (--row-lock-wait 0)
  const waits = ['merge_lock', 'stage_batch_lock', 'lock_error_rows'].flatMap((name) =>
    [0, 3, undefined].map((seconds) => ({
      where: `sql/oracle/queries/${name}.sql (wait ${seconds ?? 'none'})`,
      text: boundedWait(oracleQuery(name), seconds),
    })),
  );
  return [...queries, ...migrations, ...waits];
}

/** The Oracle test target's own statements: the schema's reset (oracle-fresh.ts, oracle-target.ts). */
function harnessStatements(): TestStatement[] {
  const where = 'test/support/oracle-fresh.ts';
  return [
    { where, text: SHAPE_QUERY },
    { where, text: TABLES_QUERY },
    { where, text: emptyingStatements('ORDER_STAGE').delete },
    { where, text: identityRestart('ORDER_STAGE', 'STAGE_ID', 'BY DEFAULT') },
    { where, text: identityRestart('ORDER_STAGE', 'STAGE_ID', 'ALWAYS') },
    ...ORACLE_LOADER_TABLES.map((t) => ({ where: 'test/support/oracle-target.ts', text: oracleDropTable(t) })),
  ];
}

const CHECK = process.env.ORDER_LOADER_PLSQL_CHECK ?? '/work/shared/tools/plsql/check.sh';
const BUILT = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'order-loader-plsql', '.built');
const checkerMissing = !existsSync(CHECK)
  ? `no PL/SQL grammar checker at ${CHECK} (set ORDER_LOADER_PLSQL_CHECK)`
  : !existsSync(BUILT)
    ? `the PL/SQL grammar checker is not built (${BUILT} missing: run its build.sh; it needs a JDK and a grammars-v4 mirror, which CI does not have)`
    : null;

describe("the Oracle job's own test statements", () => {
  const statements = oracleJobTestStatements();

  it('are found in the tests, translated for Oracle, and none is for another engine only', () => {
    const texts = statements.map((s) => s.text);
    expect(statements.length).toBeGreaterThan(150);
    // a PostgreSQL spelling left in any would be refused by Oracle
    for (const s of statements) {
      expect(s.text, s.where).not.toMatch(/::[a-z]|\$\d|\bnow\(\)|\bLIMIT\s+\d|IS\s+(NOT\s+)?DISTINCT\s+FROM|\$\$|\bplpgsql\b/i);
    }
    // the staging refusal's constraint, and a query of an invariant
    expect(texts.some((t) => t.includes('ADD CONSTRAINT test_refuse_xxx CHECK'))).toBe(true);
    expect(texts.some((t) => t.includes('FETCH FIRST 50 ROWS ONLY'))).toBe(true);
    // lock-wait.test.ts runs no test on Oracle; a skipIf(oracle) test's statements are left out
    expect(statements.filter((s) => s.where.includes('lock-wait'))).toEqual([]);
    expect(texts.some((t) => t.includes('test_fail_keys'))).toBe(false);
  });

  it('come from every shared integration file that runs on Oracle', () => {
    // these give forEachTarget targets without Oracle (see docs/oracle.md, "What it does not cover")
    const withoutOracle = [
      'control-hold-index.test.ts',
      'copy-staging.test.ts',
      'identical-done-row.test.ts',
      'load-places.test.ts',
      'lock-wait.test.ts',
      'process-in-database.test.ts',
      'refusal-precheck.test.ts',
      'refusals-in-database-adversary.test.ts',
      'review-server.test.ts',
      'settle-while-staging.test.ts',
      'stage-indexes.test.ts',
      'stage-statistics.test.ts',
      'status-one-pass.test.ts',
    ];
    const shared = readdirSync('test/integration')
      .filter((f) => f.endsWith('.test.ts') && !withoutOracle.includes(f))
      .filter((f) => /forEachTarget\(|describe\.each\(testTargets\(\)\)/.test(readFileSync(join('test/integration', f), 'utf8')))
      .map((f) => `test/integration/${f}`);
    expect(ORACLE_JOB_TEST_FILES.filter((f) => f.startsWith('test/integration/'))).toEqual(shared);
  });

  it('use no CLOB column where Oracle refuses one (ORA-00932: ORDER BY, GROUP BY, DISTINCT, =)', () => {
    expect(clobMisuse('SELECT phase, raw_record FROM order_bulk_error ORDER BY phase, raw_record')).toEqual(['raw_record in ORDER BY']);
    expect(clobMisuse('SELECT raw_record FROM order_bulk_error ORDER BY phase, DBMS_LOB.SUBSTR(raw_record, 4000)')).toEqual([]);
    expect(clobMisuse("SELECT detail FROM load_run_event WHERE event = 'x' ORDER BY run_id, seq")).toEqual([]);
    const misused = statements.flatMap((s) => clobMisuse(s.text).map((m) => `${s.where}: ${m}`));
    expect(misused).toEqual([]);
  });

  it('name no alias with an Oracle reserved word (the grammar accepts ROWS, LEVEL, SIZE…; Oracle refuses them: ORA-00923)', () => {
    expect(reservedAliases('SELECT count(DISTINCT stage_id) AS rows, count(*) AS n FROM order_stage_audit')).toEqual(['ROWS']);
    expect(reservedAliases('SELECT CAST(d AS DATE) AS day, CAST(s AS VARCHAR2(10)) AS size FROM t')).toEqual(['SIZE']);
    expect(reservedAliases("SELECT 'x AS rows' AS label, l.level_no AS lvl FROM t l")).toEqual([]);
    const misnamed = [...statements, ...loaderStatements(), ...harnessStatements()].flatMap((s) =>
      reservedAliases(s.text).map((w) => `${s.where}: AS ${w}`),
    );
    expect(misnamed).toEqual([]);
  });

  it.skipIf(checkerMissing !== null)(
    `pass the PL/SQL grammar check, with the loader's own statements${checkerMissing === null ? '' : ` (skipped: ${checkerMissing})`}`,
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'ora-test-sql-'));
      const checked = [...statements, ...loaderStatements(), ...harnessStatements()];
      expect(checked.some((s) => s.where === 'sql/oracle/queries/stage_batch_direct.sql')).toBe(true);
      try {
        const files = checked.map((s, i) => {
          const file = join(dir, `s${String(i).padStart(3, '0')}.sql`);
          writeFileSync(file, s.text);
          return file;
        });
        const result = spawnSync(CHECK, files, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
        const output = `${result.stdout}${result.stderr}`;
        // PASS file / FAIL file, then the failed file's errors indented
        const verdicts = new Map<string, string>();
        let current = '';
        for (const line of output.split('\n')) {
          const m = /^(PASS|FAIL) (.+)$/.exec(line);
          if (m !== null) verdicts.set((current = m[2] ?? ''), m[1] === 'PASS' ? 'PASS' : '');
          else if (current !== '' && verdicts.get(current) !== 'PASS')
            verdicts.set(current, `${verdicts.get(current) ?? ''} ${line.trim()}`);
        }
        const failed = checked
          .map((s, i) => ({ ...s, verdict: verdicts.get(files[i] ?? '') ?? 'not checked' }))
          .filter((s) => s.verdict !== 'PASS')
          .map((s) => `${s.where}: ${s.text.replace(/\s+/g, ' ')} →${s.verdict.replace(/ \/\S+:/g, ' ')}`);
        expect(failed).toEqual([]);
        expect(result.status, output).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
