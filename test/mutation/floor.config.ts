import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** The floor check after `stryker run` (test/mutation/floor.check.ts), part of npm run test:mutation. */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: { include: ['test/mutation/floor.check.ts'] },
});
