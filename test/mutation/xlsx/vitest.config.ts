import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The tests StrykerJS runs against each mutant of the xlsx group (stryker.xlsx.config.json): the
 * xlsx reader of src/input/formats/ (the workbook's parts, its sheet's cells and columns, its
 * control rows), tested on workbooks written in the run's temporary folder without a database.
 * Fast files only (docs/mutation.md, "Groups"). A list of its own: a test file added here stales
 * the scores of this group only.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../../..', import.meta.url)),
  test: {
    include: ['test/unit/{xlsx-reader,xlsx-entry-order,xlsx-cell-refs,xlsx-columns,xlsx-shared-strings}.test.ts'],
    globalSetup: ['test/mutation/global-setup.ts'],
    testTimeout: 60_000,
  },
});
