/**
 * The mutation-score floor, cheap enough for CI (`npm run test:mutation:floor`, a few seconds; it
 * runs no mutant): in every group (scores.ts GROUPS), every module StrykerJS mutates (the group's
 * `mutate`) has a score in the group's scores.json measured on its current source, on the current
 * tests that covered or killed its mutants and on the group's current test list, and that score
 * reaches its floor in the group's floors.json. A stale score is a warning, not a failure: it is
 * printed (on stderr) with the modules and the command that measures them again and records the
 * scores, `npm run test:mutation:<group>` (record.check.ts). Prints the tables of docs/mutation.md.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import {
  checkScores,
  GROUPS,
  inScope,
  mutatedTwice,
  scoreTable,
  staleWarning,
  type Floors,
  type ScoresFile,
  type StrykerConfig,
} from './scores.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const readJson = (path: string): unknown => JSON.parse(readFileSync(`${ROOT}${path}`, 'utf8'));
const read = (path: string): string | undefined => (existsSync(`${ROOT}${path}`) ? readFileSync(`${ROOT}${path}`, 'utf8') : undefined);
const sources = readdirSync(`${ROOT}src`, { recursive: true, encoding: 'utf8' })
  .map((f) => `src/${f.split('\\').join('/')}`)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .sort();

it('every mutated rule module has a mutation score, and a current one reaches its floor (each group’s floors.json)', () => {
  const problems: string[] = [];
  const warnings: string[] = [];
  const mutatedByGroup = new Map<string, string[]>();
  for (const group of GROUPS) {
    const { mutate } = readJson(group.config) as StrykerConfig;
    const mutated = sources.filter((f) => inScope(f, mutate));
    mutatedByGroup.set(group.name, mutated);
    const scores = readJson(group.scores) as ScoresFile;
    const floors = readJson(group.floors) as Floors;
    console.log(`${group.name} (${group.config}):\n${scoreTable(scores, floors, mutated)}\n`);
    const { failures, stale } = checkScores(group, scores, floors, mutated, read);
    problems.push(...failures);
    if (stale.length > 0) warnings.push(staleWarning(group, stale));
  }
  problems.push(...mutatedTwice(mutatedByGroup));
  // last, so that it is the end of the output; a warning, not a failure
  if (warnings.length > 0) console.warn(`\n${warnings.join('\n\n')}\n`);
  expect(problems, 'mutation scores (docs/mutation.md)').toEqual([]);
});
