import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The tests StrykerJS runs against each mutant of the fixed group (stryker.fixed.config.json):
 * the fixed-width reader (src/input/profile/fixed-reader.ts). No database, as in the other
 * groups. A list of its own: a test file added here stales the scores of this group only
 * (docs/mutation.md, "Groups"); fixed-reader-edges and fixed-reader-lines, written for this
 * module's survivors, could not join the first group's list without staling all of its scores.
 *
 * fixed-reader and raw-line are the files of the first group's list whose tests reached this
 * module's mutants when it was measured there (test/mutation/stryker-incremental.json); the two
 * others were written for it.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../../..', import.meta.url)),
  test: {
    include: ['test/unit/{fixed-reader,fixed-reader-edges,fixed-reader-lines,fixed-reader-control,raw-line}.test.ts'],
    globalSetup: ['test/mutation/global-setup.ts'],
    testTimeout: 60_000,
  },
});
