/**
 * After a StrykerJS run (`npm run test:mutation:record`, part of `npm run test:mutation`): the
 * scores of the modules the run mutated, from its incremental file, written to
 * test/mutation/scores.json with the sha256 of each one's source and of the tests that covered or
 * killed its mutants (see scores.ts); the other modules keep their entries. Commit both files.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { recordScores, RUNNER_CONFIG, type ScoresFile, type StrykerReport } from './scores.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCORES = `${ROOT}test/mutation/scores.json`;

it('records the scores of the modules the last StrykerJS run mutated (test/mutation/scores.json)', () => {
  const report = JSON.parse(readFileSync(`${ROOT}test/mutation/stryker-incremental.json`, 'utf8')) as StrykerReport;
  const previous = JSON.parse(readFileSync(SCORES, 'utf8')) as ScoresFile;
  const { scores, measured } = recordScores(report, previous, readFileSync(`${ROOT}${RUNNER_CONFIG}`, 'utf8'), new Date());
  writeFileSync(SCORES, `${JSON.stringify(scores, null, 2)}\n`);
  console.log(`recorded: ${measured.join(', ')}`);
  expect(measured.length, `no module of the run's scope (${(report.config?.mutate ?? []).join(', ')}) is in its report`).toBeGreaterThan(0);
});
