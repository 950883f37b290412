import { defineConfig } from 'vitest/config';

// Two projects: `fast` (unit, integration, CLI, Oracle recording tests: `npm test`) and
// `survival` (kill -9, restarts, hostile files, concurrent workers: `npm run test:survival`).
export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: ['test/survival/**'] },
      },
      {
        extends: true,
        test: { name: 'survival', include: ['test/survival/**/*.test.ts'] },
      },
    ],
  },
});
