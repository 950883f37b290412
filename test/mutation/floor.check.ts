/**
 * The mutation score's floor, checked after `stryker run` (npm run test:mutation): the score of
 * each rule module, from StrykerJS's JSON report, must reach its floor in floors.json (a module without one is named, to get one). The table
 * printed is the one of docs/mutation.md. Score = detected / (detected + undetected): killed and
 * timed-out mutants over those plus the survivors and those no test reaches (Stryker's own).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REPORT = `${ROOT}reports/mutation/mutation.json`;
const floors = JSON.parse(readFileSync(new URL('floors.json', import.meta.url), 'utf8')) as { modules: Record<string, number> };

interface Report {
  files: Record<string, { mutants: Array<{ status: string }> }>;
}

function scores(report: Report): Array<{ module: string; killed: number; survived: number; noCoverage: number; score: number }> {
  return Object.entries(report.files)
    .map(([path, file]) => {
      const count = (...statuses: string[]) => file.mutants.filter((m) => statuses.includes(m.status)).length;
      const detected = count('Killed', 'Timeout');
      const survived = count('Survived');
      const noCoverage = count('NoCoverage');
      const valid = detected + survived + noCoverage;
      return { module: path, killed: detected, survived, noCoverage, score: valid === 0 ? 100 : (100 * detected) / valid };
    })
    .sort((a, b) => a.module.localeCompare(b.module));
}

it('every rule module reaches its mutation-score floor (test/mutation/floors.json)', () => {
  expect(existsSync(REPORT), `${REPORT} is missing: run npm run test:mutation`).toBe(true);
  const table = scores(JSON.parse(readFileSync(REPORT, 'utf8')) as Report);
  console.log(
    ['| module | killed | survived | no coverage | score | floor |', '|---|---:|---:|---:|---:|---:|']
      .concat(
        table.map(
          (r) =>
            `| \`${r.module}\` | ${r.killed} | ${r.survived} | ${r.noCoverage} | ${r.score.toFixed(1)} % | ${floors.modules[r.module] ?? '–'} |`,
        ),
      )
      .join('\n'),
  );
  const below = table.filter((r) => r.score < (floors.modules[r.module] ?? 0)).map((r) => `${r.module} ${r.score.toFixed(1)} %`);
  expect(below, 'modules below their floor').toEqual([]);
  // a module measured for the first time has no floor yet: said, so that it gets one from this table
  const unfloored = table.map((r) => r.module).filter((m) => floors.modules[m] === undefined);
  if (unfloored.length > 0) console.warn(`no floor yet (add it to test/mutation/floors.json): ${unfloored.join(', ')}`);
});
