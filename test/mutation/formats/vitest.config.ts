import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The tests StrykerJS runs against each mutant of the formats group (stryker.formats.config.json):
 * the format readers under src/input/formats/ that have a group of their own (JSON Lines: its
 * reader, its path syntax and its number-exact JSON text), tested on files in the run's temporary
 * folder without a database. A list of its own: a test file added here stales the scores of this
 * group only (docs/mutation.md, "Groups").
 */
export default defineConfig({
  root: fileURLToPath(new URL('../../..', import.meta.url)),
  test: {
    include: ['test/unit/{jsonl-reader,guess-jsonl,control-totals}.test.ts'],
    globalSetup: ['test/mutation/global-setup.ts'],
    testTimeout: 60_000,
  },
});
