import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The tests StrykerJS runs against each mutant of the delimited group
 * (stryker.delimited.config.json): the delimited text reader of src/input/formats/ (its header,
 * record split, byte offsets and rejects), tested through openOrderFile on files in the run's
 * temporary folder without a database. Fast files only: `quote-free-split.test.ts` (21 s alone)
 * would make every static mutant of the group pay for it (docs/mutation.md, "Groups"). A list of
 * its own: a test file added here stales the scores of this group only.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../../..', import.meta.url)),
  test: {
    include: ['test/unit/{order-file,order-file-edges,gzip-input,quote-free-split-work,delimited-helpers}.test.ts'],
    globalSetup: ['test/mutation/global-setup.ts'],
    testTimeout: 60_000,
  },
});
