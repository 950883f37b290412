import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The tests StrykerJS runs against each mutant of the reader-io group (stryker.reader-io.config.json):
 * the byte source's gzip members, and the delimited text and xlsx readers of src/input/formats/ once
 * measured (the list holds their tests already, so that their joining `mutate` stales nothing),
 * tested on files in the run's temporary folder without a database. A list of its own: a test file
 * added here stales the scores of this group only (docs/mutation.md, "Groups").
 */
export default defineConfig({
  root: fileURLToPath(new URL('../../..', import.meta.url)),
  test: {
    include: [
      'test/unit/{gzip-members,gzip-input,order-file,order-file-edges,quote-free-split,quote-free-split-work}.test.ts',
      'test/unit/{xlsx-reader,xlsx-entry-order,xlsx-cell-refs}.test.ts',
    ],
    globalSetup: ['test/mutation/global-setup.ts'],
    testTimeout: 60_000,
  },
});
