import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The mutation scores' two steps without a mutant (test/mutation/scores.ts): `record` after a
 * StrykerJS run (record.check.ts), `floor` the check (floor.check.ts), chosen by the mode:
 * `--mode record` records the `rules` group, `--mode record:<group>` another group; any other
 * mode is the check, over every group.
 */
export default defineConfig(({ mode }) => {
  const [step, group = 'rules'] = mode.split(':');
  return {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    test: {
      include: [step === 'record' ? 'test/mutation/record.check.ts' : 'test/mutation/floor.check.ts'],
      env: { MUTATION_GROUP: group },
      // they hash every module and test file of a group: seconds when the machine is idle, but
      // more than vitest's 5 s default beside a StrykerJS run (seen: the record step timed out)
      testTimeout: 120_000,
    },
  };
});
