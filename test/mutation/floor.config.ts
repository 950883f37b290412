import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The mutation scores' two steps without a mutant (test/mutation/scores.ts): `record` after a
 * StrykerJS run (record.check.ts), `floor` the check (floor.check.ts), chosen by the mode
 * (`vitest run --config test/mutation/floor.config.ts --mode record|floor`).
 */
export default defineConfig(({ mode }) => ({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: { include: [mode === 'record' ? 'test/mutation/record.check.ts' : 'test/mutation/floor.check.ts'] },
}));
