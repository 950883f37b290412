/**
 * After a StrykerJS run (`npm run test:mutation:record` for the `rules` group,
 * `npm run test:mutation:record:<group>` for another; part of `npm run test:mutation`): the scores
 * of the modules the group's last run mutated, from its incremental file, written to the group's
 * scores.json with the sha256 of each one's source and of the tests that covered or killed its
 * mutants (see scores.ts); the other modules keep their entries. Commit both files.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { GROUPS, recordScores, type ScoresFile, type StrykerConfig, type StrykerReport } from './scores.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string): string => readFileSync(`${ROOT}${path}`, 'utf8');
const name = process.env['MUTATION_GROUP'] ?? 'rules';
const group = GROUPS.find((g) => g.name === name);

it(`records the scores of the modules the last StrykerJS run of group ${name} mutated`, () => {
  if (group === undefined) throw new Error(`no mutation group ${name} (test/mutation/scores.ts GROUPS)`);
  const config = JSON.parse(read(group.config)) as StrykerConfig;
  const report = JSON.parse(read(config.incrementalFile)) as StrykerReport;
  const previous = JSON.parse(read(group.scores)) as ScoresFile;
  const runner = { path: config.vitest.configFile, text: read(config.vitest.configFile) };
  const { scores, measured } = recordScores(report, previous, runner, new Date());
  writeFileSync(`${ROOT}${group.scores}`, `${JSON.stringify(scores, null, 2)}\n`);
  console.log(`recorded (${group.scores}): ${measured.join(', ')}`);
  expect(measured.length, `no module of the run's scope (${(report.config?.mutate ?? []).join(', ')}) is in its report`).toBeGreaterThan(0);
});
