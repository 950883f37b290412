import { defineConfig } from 'vitest/config';

// Two projects: `fast` (unit, integration, CLI, Oracle recording tests: `npm test`) and
// `survival` (kill -9, restarts, hostile files, concurrent workers: `npm run test:survival`).
export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    // A CLI test runs up to a dozen child processes, and the first database of a worker builds
    // the PGlite template: on a busy machine, beside two other workers, that took up to 94 s.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: ['test/survival/**', 'test/oracle-server/**'],
          // vitest's default on 2 cores is one worker, and the CLI tests spend most of their time
          // waiting on a child process: 3 workers keep both cores busy.
          maxWorkers: 3,
          // Files share their worker's modules: the migrated in-memory PGlite template
          // (test/support/databases.ts) is built once per worker, not once per file (about 4 s
          // of CPU each). No test of this project mocks a module or changes process state.
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'survival', include: ['test/survival/**/*.test.ts'] },
      },
    ],
  },
});
