/**
 * The mutation-score floor, cheap enough for CI (`npm run test:mutation:floor`, a few seconds; it
 * runs no mutant): every module StrykerJS mutates (stryker.config.json's `mutate`) has a score in
 * test/mutation/scores.json measured on its current source and on the current tests that covered
 * or killed its mutants, and that score reaches its floor in test/mutation/floors.json. A stale
 * score fails: it says to run `npm run test:mutation` (incremental), which measures again and
 * records the scores (record.check.ts). Prints the table of docs/mutation.md.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { checkScores, inScope, scoreTable, type Floors, type ScoresFile } from './scores.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const readJson = (path: string): unknown => JSON.parse(readFileSync(`${ROOT}${path}`, 'utf8'));

it('every mutated rule module has a current mutation score that reaches its floor (test/mutation/floors.json)', () => {
  const { mutate } = readJson('stryker.config.json') as { mutate: string[] };
  const mutated = readdirSync(`${ROOT}src`, { recursive: true, encoding: 'utf8' })
    .map((f) => `src/${f.split('\\').join('/')}`)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && inScope(f, mutate))
    .sort();
  const scores = readJson('test/mutation/scores.json') as ScoresFile;
  const floors = readJson('test/mutation/floors.json') as Floors;
  console.log(scoreTable(scores, floors, mutated));
  const problems = checkScores(scores, floors, mutated, (path) =>
    existsSync(`${ROOT}${path}`) ? readFileSync(`${ROOT}${path}`, 'utf8') : undefined,
  );
  expect(problems, 'mutation scores (docs/mutation.md)').toEqual([]);
});
