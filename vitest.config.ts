import { defineConfig } from 'vitest/config';

// `npm test` runs `fast` and `fast-isolated` (unit, integration, Oracle recording tests: the
// inner loop); `npm run test:slow` runs `slow` (the CLI as child processes, kills and signals,
// the slowest files); `npm run test:survival` runs `survival` (kill -9, restarts, hostile files,
// concurrent processes). CI (.ci/run) runs all four.
/** Test files that replace a module with vi.mock: never in a shared module registry. */
const MOCKING = [
  'test/oracle/connections.recording.test.ts',
  'test/oracle/mutants.recording.test.ts',
  'test/oracle/test-target.recording.test.ts',
  'test/unit/quote-free-split-work.test.ts',
  'test/unit/guess-refusals.test.ts',
];
/**
 * Tests that cost the inner loop most of its time, run by `npm run test:slow` (and by CI) in the
 * `slow` project instead of `fast` (measured per file with vitest's JSON reporter, docs/testing.md):
 * every test of the CLI (each command a child process running dist/), the tests that kill or
 * signal processes, and files slow by design. The same environment as `fast`.
 */
const SLOW = [
  // the CLI run as child processes (and the docs' commands through it)
  'test/cli/**/*.test.ts',
  'test/integration/overlap-hold.test.ts',
  // kills and signals: a lock holder killed, SIGINT while a chunk waits, child processes racing for a lock
  'test/unit/folder-lock.test.ts',
  'test/integration/lock-wait.test.ts',
  // the Oracle statements through the PL/SQL grammar checker (a JVM per run; skipped without it)
  'test/oracle/test-statements.grammar.test.ts',
  // the Oracle job's test list (vitest list of test/oracle-server/vitest.config.ts, about a minute)
  'test/oracle/job-list.test.ts',
  // PGlite's initdb, the slowest thing PGlite does, run on purpose (the fallback to it)
  'test/integration/pglite-ready.test.ts',
  // large generated cases, kept out of the mutation lists for their time too (docs/mutation.md)
  'test/unit/profile-mapping-fast.test.ts',
  'test/unit/quote-free-split.test.ts',
];
/**
 * The fast projects' workers: V8 compiles WebAssembly (PGlite's postgres and initdb) with its
 * baseline compiler only. Otherwise each worker re-optimizes the hot parts of postgres for
 * itself, and the tests' short-lived databases never pay it back (measured on three PGlite-heavy
 * files: 62 s of CPU instead of 77 s). Only how V8 compiles changes, not what runs.
 */
const FAST_EXEC_ARGV = ['--liftoff-only'];
/**
 * The run's temporary folder, the migrated PGlite folder and the server template database:
 * given to each project that needs them (one given to the root config runs once more for the
 * root and once for every project, each copying the 39 MB folder).
 */
const GLOBAL_SETUP = 'test/support/global-setup.ts';

export default defineConfig({
  test: {
    // transformed test and source modules kept in node_modules/.experimental-vitest-cache, keyed
    // by their content: a run transforms only what changed (transform 5.1 s and import 8.9 s
    // summed over the workers, then 0.8 s and 4.4 s)
    experimental: { fsModuleCache: true },
    // A CLI test runs up to a dozen commands, and the first database of a worker waits for the
    // migrated PGlite folder of the global setup: on a busy machine that took up to 94 s.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          globalSetup: [GLOBAL_SETUP],
          include: ['test/**/*.test.ts'],
          exclude: ['test/survival/**', 'test/oracle-server/**', 'test/browser/**', ...MOCKING, ...SLOW],
          // vitest's default on 2 cores is one worker, and many tests spend much of their time
          // waiting on the PostgreSQL server or on a child process: 3 workers keep both cores busy.
          maxWorkers: 3,
          execArgv: FAST_EXEC_ARGV,
          // Files share their worker's modules: the migrated PGlite template
          // (test/support/databases.ts) is loaded once per worker, not once per file, and PGlite's
          // compiled WebAssembly is kept for the worker. A file that mocks a module runs in
          // `fast-isolated` instead.
          isolate: false,
        },
      },
      {
        extends: true,
        // the same kind of tests, in a module registry of their own: they replace a module (vi.mock).
        // They use no database and no temporary folder: no global setup
        test: { name: 'fast-isolated', include: MOCKING, isolate: true, maxWorkers: 3, execArgv: FAST_EXEC_ARGV },
      },
      {
        extends: true,
        // as `fast`, over the files of SLOW
        test: { name: 'slow', include: SLOW, globalSetup: [GLOBAL_SETUP], maxWorkers: 3, execArgv: FAST_EXEC_ARGV, isolate: false },
      },
      {
        extends: true,
        // the review page in a real headless Chromium (npm run test:browser; skipped, saying why, without one)
        test: { name: 'browser', include: ['test/browser/**/*.test.ts'], globalSetup: [GLOBAL_SETUP], maxWorkers: 1 },
      },
      {
        extends: true,
        test: { name: 'survival', include: ['test/survival/**/*.test.ts'], globalSetup: [GLOBAL_SETUP] },
      },
    ],
  },
});
