import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The tests StrykerJS runs against each mutant of the file group (stryker.file.config.json): the
 * test files that read files through the order-file reader (src/input/order-file.ts,
 * openOrderFile), directly or through repeated-keys.ts and the fixed-width reader. No database,
 * as in the other groups. A list of its own: a test file added here stales the scores of this
 * group only (docs/mutation.md, "Groups").
 *
 * Kept to fast files (10 files, about 7 s): coverageAnalysis is perTest, and a slow test makes
 * every mutant it reaches slow. Not here: quote-free-split.test.ts (21 s alone: six seeded
 * files read twice in small reads, one case of 64 KiB and 256 KiB reads takes 10 s; it reaches
 * the split of every line, so every mutant of the hot path would run it) and
 * quote-free-split-work.test.ts (it replaces csv-parse with vi.mock: it needs a module registry
 * of its own).
 */
export default defineConfig({
  root: fileURLToPath(new URL('../../..', import.meta.url)),
  test: {
    include: [
      'test/unit/{order-file,gzip-input,repeated-keys,fixed-reader,fixed-reader-edges,attributes,builtin-profile,profile,profile-shape,guess-draft}.test.ts',
    ],
    globalSetup: ['test/mutation/global-setup.ts'],
    testTimeout: 60_000,
  },
});
