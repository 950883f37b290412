import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The tests StrykerJS runs against each mutant of the profile group (stryker.profile.config.json):
 * the unit tests of the load profiles' schema (src/input/profile/schema.ts) and field mapping
 * (src/input/profile/mapping.ts, its column readers column-reader.ts, the amount forms
 * amount-form.ts and the date masks date-mask.ts). No database, as in the other groups. A list of its own: a test
 * file added here stales the scores of this group only (docs/mutation.md, "Groups").
 *
 * Kept short: the schema's zod objects are built when the module loads, each of their mutants is
 * static, and StrykerJS runs every test of the list for each of them (9 files; mapped-order.test.ts
 * adds about 1 s: the order the mapping hands over against parseOrderRecord and validateOrder;
 * profile-vocabulary.test.ts 0.1 s: currency signs, amount_sign, file_group and the ="…" guard
 * through the mapping, which no other file of the list reached; mapping-edges.test.ts the form
 * warning, file-name defaults, const columns and a record short of a column; trusted-forms.test.ts
 * which forms the order handed over trusts, a decision no order shows).
 * Each file builds its profiles and mappings inside its tests (code run while a file is collected
 * makes static mutants). Not here: profile-mapping-fast.test.ts (12 s: ten cases of 20,000 random
 * amounts, every date of a mask's range), which made a static mutant of the schema cost about 30 s;
 * mapping-survivors.test.ts asserts, case by case and in a fraction of a second, the readings of the
 * mapping that only it checked (docs/mutation.md, "Scores of the profile group").
 */
export default defineConfig({
  root: fileURLToPath(new URL('../../..', import.meta.url)),
  test: {
    include: [
      'test/unit/{load-profile,profile,mapping-rules,mapping-survivors,mapped-order,mapped-order-defaults,profile-vocabulary,mapping-edges,trusted-forms}.test.ts',
    ],
    globalSetup: ['test/mutation/global-setup.ts'],
    testTimeout: 60_000,
  },
});
