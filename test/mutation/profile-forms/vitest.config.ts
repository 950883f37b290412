import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The tests StrykerJS runs against each mutant of the profile-forms group
 * (stryker.profile-forms.config.json): the amounts as a profile writes them
 * (src/input/profile/amount-form.ts) and the date masks (src/input/profile/date-mask.ts). A group of
 * their own, apart from `profile`: about 70 of their mutants are static (the mask tokens' regular
 * expressions, the eras, the days of the months, the buffer of an amount's characters), each runs
 * every test of its group's list, and the profile group's list made them cost hours. This list is
 * only the fast unit tests that reach the two modules (a few seconds together), without a database:
 * the mask checks of load-profile, the mapping's readings (mapping-rules, mapping-survivors,
 * mapping-edges, profile-vocabulary) and profile-forms, written for this group's survivors. A list
 * of its own: a test file added here stales the scores of this group only (docs/mutation.md, "Groups").
 */
export default defineConfig({
  root: fileURLToPath(new URL('../../..', import.meta.url)),
  test: {
    include: [
      'test/unit/{load-profile,mapping-rules,mapping-survivors,mapping-edges,profile-vocabulary,profile-forms,profile-forms-edges}.test.ts',
    ],
    globalSetup: ['test/mutation/global-setup.ts'],
    testTimeout: 60_000,
  },
});
