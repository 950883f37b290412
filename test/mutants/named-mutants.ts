/**
 * Named mutants: small, realistic defects in the SQL (and the few rules Stryker's TypeScript
 * mutants do not reach with a database) that the suite must catch. Each is a text replacement in
 * one file of a copy of the tree, and names the tests that must fail with it:
 * test/survival/named-mutants.test.ts applies each to its own copy and runs those tests there.
 *
 * A mutant of a PostgreSQL migration changes the migrations' hash, so its run builds its own
 * PGlite folder and server template (a few seconds more; the template is dropped afterwards).
 * Add one whenever a defect got past the suite: the first step of its fix.
 */
export interface NamedMutant {
  name: string;
  /** What the defect would do. */
  defect: string;
  /** The file changed, from the repository root. */
  file: string;
  /** The text replaced (must occur exactly `occurrences` times, once unless said; each is replaced). */
  from: string;
  to: string;
  occurrences?: number;
  /** The test file that must fail, and the test names (vitest -t) to run in it. */
  killedBy: { file: string; testNamePattern: string };
  /** Its killing tests run on server PostgreSQL only (PGlite has one session: the mutant is equivalent there). */
  serverOnly?: boolean;
  /**
   * forEachTarget tests: a test must fail on each of these targets (its name says "on '<kind>'");
   * postgres only when ORDER_LOADER_TEST_PG is set. Not given: any failing test kills it.
   */
  failOn?: Array<'pglite' | 'postgres'>;
}

export const NAMED_MUTANTS: NamedMutant[] = [
  {
    name: 'pg-claim-waits-for-locked-rows',
    defect: 'the claim waits for a row another session holds instead of skipping it (FOR UPDATE without SKIP LOCKED)',
    file: 'sql/postgres/migrations/003_pinned_plans.sql',
    from: '     FOR UPDATE SKIP LOCKED\n$$;',
    to: '     FOR UPDATE\n$$;',
    killedBy: { file: 'test/integration/lock-wait.test.ts', testNamePattern: 'skipped, not waited for' },
    serverOnly: true,
  },
  {
    name: 'pg-claim-without-lock',
    defect: 'the claim locks nothing: two workers can merge the same row',
    file: 'sql/postgres/migrations/003_pinned_plans.sql',
    from: '     FOR UPDATE SKIP LOCKED\n$$;',
    to: '$$;',
    killedBy: { file: 'test/integration/lock-wait.test.ts', testNamePattern: 'the claim locks the rows it claims' },
    failOn: ['pglite', 'postgres'],
  },
  {
    name: 'pg-process-chunk-takes-negative-amounts',
    defect: 'the database’s plain rules are wider than validateOrder’s: a negative amount is merged and DONE',
    file: 'sql/postgres/migrations/014_refusals_in_database.sql',
    from: 'AND s.amount >= 0 AND',
    to: 'AND s.amount >= -1e16 AND',
    killedBy: { file: 'test/integration/process-in-database.test.ts', testNamePattern: 'leaves the same stage' },
    failOn: ['pglite', 'postgres'],
  },
  {
    name: 'pg-process-chunk-takes-any-currency',
    defect: 'the database’s plain rules take any currency: a lower-case or accented code is merged and DONE',
    file: 'sql/postgres/migrations/014_refusals_in_database.sql',
    from: `AND s.currency::text COLLATE "C" ~ '^[A-Z]{3}$'`,
    to: 'AND s.currency IS NOT NULL',
    killedBy: { file: 'test/integration/process-in-database.test.ts', testNamePattern: 'judges values set by SQL' },
    failOn: ['pglite', 'postgres'],
  },
  {
    name: 'pg-stage-keeps-earlier-identical-line',
    defect:
      'a later line of a key with the values an earlier batch of the same load staged leaves the row, and the error log, on the earlier line',
    file: 'sql/postgres/migrations/020_unchanged_loads.sql',
    from: '\n         OR (s.load_id = p_load_id AND s.line_no < p.line_no))',
    to: ')',
    killedBy: { file: 'test/integration/repeated-identical-line.test.ts', testNamePattern: 'names the later line' },
    failOn: ['pglite', 'postgres'],
  },
  {
    name: 'pg-merge-precheck-refuses-amounts-that-fit',
    defect:
      'the check before the MERGE takes amounts with one digit fewer than orders.amount holds: rows that fit are refused as overflows',
    file: 'sql/postgres/migrations/013_line_and_refusals.sql',
    from: '>= 10::numeric ^ amount_digits',
    to: '>= 10::numeric ^ (amount_digits - 1)',
    killedBy: { file: 'test/integration/refusal-precheck.test.ts', testNamePattern: 'are the rows the MERGE refuses' },
    failOn: ['pglite', 'postgres'],
  },
  {
    name: 'pg-process-chunk-writes-transient-refusals-error',
    defect:
      'the chunk call is not told which SQLSTATEs are transient: a row that timed out on a lock is written ERROR by the database instead of waiting in RETRY_WAIT',
    file: 'src/engine/postgres/chunk.ts',
    from: '        TRANSIENT_SQLSTATE_LIST,\n',
    to: '        [],\n',
    killedBy: { file: 'test/integration/lock-wait.test.ts', testNamePattern: 'that row waits in RETRY_WAIT and every other row' },
    failOn: ['pglite', 'postgres'],
  },
  {
    name: 'pg-retry-selects-done-rows',
    defect: 'retry sets DONE rows of the chosen load READY again (and audits them)',
    file: 'sql/postgres/queries/lock_error_rows.sql',
    from: "WHERE process_status = 'ERROR'",
    to: "WHERE process_status IN ('ERROR', 'DONE')",
    killedBy: { file: 'test/integration/attempts-and-retry.test.ts', testNamePattern: 'over a load with DONE and ERROR rows' },
    failOn: ['pglite', 'postgres'],
  },
  {
    name: 'pg-retry-dry-run-selects-done-rows',
    defect: 'retry --dry-run plans DONE rows too (the plan is not what the retry does)',
    file: 'sql/postgres/queries/find_error_rows.sql',
    from: "WHERE process_status = 'ERROR'",
    to: "WHERE process_status IN ('ERROR', 'DONE')",
    killedBy: { file: 'test/integration/attempts-and-retry.test.ts', testNamePattern: 'over a load with DONE and ERROR rows' },
    failOn: ['pglite', 'postgres'],
  },
  {
    name: 'abandon-other-hosts-runs',
    defect: 'a RUNNING run of another host, whose pid means nothing here, is closed FAILED as abandoned',
    file: 'src/pipeline/operations.ts',
    from: 'if (run.host !== host || run.pid === process.pid',
    to: 'if (run.pid === process.pid',
    killedBy: { file: 'test/integration/operations.test.ts', testNamePattern: 'RUNNING run of another host' },
    failOn: ['pglite', 'postgres'],
  },
  {
    name: 'oracle-claim-waits-for-locked-rows',
    defect: 'Oracle: the claim waits for a row another session holds (FOR UPDATE without SKIP LOCKED)',
    file: 'sql/oracle/queries/claim.sql',
    from: '   FOR UPDATE SKIP LOCKED',
    to: '   FOR UPDATE',
    killedBy: { file: 'test/oracle/engine.recording.test.ts', testNamePattern: 'claim, merge, finalize in one transaction' },
  },
  {
    name: 'oracle-claim-without-lock',
    defect: 'Oracle: the claim locks nothing',
    file: 'sql/oracle/queries/claim.sql',
    from: '\n   FOR UPDATE SKIP LOCKED',
    to: '',
    killedBy: { file: 'test/oracle/engine.recording.test.ts', testNamePattern: 'claim, merge, finalize in one transaction' },
  },
  {
    name: 'oracle-stage-keeps-earlier-identical-line',
    defect: 'Oracle: a later identical line of a key in the same load leaves the row on the earlier line',
    file: 'sql/oracle/queries/stage_batch_update.sql',
    from: '\n    OR (DECODE(s.load_id, :load_id, 1, 0) = 1 AND s.line_no < src.line_no)',
    to: '',
    killedBy: { file: 'test/oracle/statements.recording.test.ts', testNamePattern: 'staging: new keys straight into order_stage' },
  },
  {
    name: 'oracle-retry-selects-done-rows',
    defect: 'Oracle: retry sets DONE rows READY again',
    file: 'sql/oracle/queries/lock_error_rows.sql',
    // its predicates and its ORDER BY read the ERROR-row index's expression (migration 004)
    from: "CASE WHEN process_status = 'ERROR' THEN stage_id END",
    to: "CASE WHEN process_status IN ('ERROR', 'DONE') THEN stage_id END",
    occurrences: 3,
    killedBy: { file: 'test/oracle/operations.recording.test.ts', testNamePattern: 'lock: the batch is found without a lock' },
  },
];
