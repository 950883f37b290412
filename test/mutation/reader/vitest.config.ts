import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The tests StrykerJS runs against each mutant of the reader group (stryker.reader.config.json):
 * the unit tests of the load profiles' schema and built-in profile and of the profile guesser.
 * No database, as in the first group (test/mutation/vitest.config.ts). A list of its own: a test
 * file added here stales the scores of this group only (docs/mutation.md, "Groups").
 *
 * Kept short on purpose: most mutants of these modules are static (module-level code: the zod
 * schema, the built-in profile, the guesser's tables), and StrykerJS runs every test of the list
 * for each of them.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../../..', import.meta.url)),
  test: {
    include: [
      'test/unit/{builtin-profile,load-profile,profile,guess,guess-files,guess-fields,guess-draft,guess-encoding,guess-control,guess-jsonl,guess-vocabulary,guess-readme-examples,guess-layout,guess-evidence,guess-refusals,guess-totals,xlsx-reader}.test.ts',
    ],
    globalSetup: ['test/mutation/global-setup.ts'],
    testTimeout: 60_000,
  },
});
