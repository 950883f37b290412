/**
 * CI runs every vitest project of vitest.config.ts: `.ci/run`'s npm commands, read through
 * package.json's scripts, name each project with `--project`. A project added (or a test file
 * moved into one) that CI does not run would be a test that never runs.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.js';

const repo = (path: string) => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), 'utf8');

/** The vitest projects each command runs, following `npm test` / `npm run X` into package.json's scripts. */
function projectsRun(command: string, scripts: Record<string, string>, seen = new Set<string>()): string[] {
  const projects = [...command.matchAll(/--project[ =](\S+)/g)].map((m) => m[1] ?? '');
  for (const m of command.matchAll(/\bnpm (?:test|run ([\w:-]+))/g)) {
    const script = m[1] ?? 'test';
    if (seen.has(script)) continue;
    seen.add(script);
    projects.push(...projectsRun(scripts[script] ?? '', scripts, seen));
  }
  return projects;
}

describe('the vitest projects CI runs', () => {
  const scripts = (JSON.parse(repo('package.json')) as { scripts: Record<string, string> }).scripts;
  const ciCommands = repo('.ci/run')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'));
  const names = (config.test?.projects ?? []).map((p) => (typeof p === 'object' && 'test' in p ? p.test?.name : undefined));

  it('.ci/run runs every project of vitest.config.ts', () => {
    expect(names).toEqual(['fast', 'fast-isolated', 'slow', 'browser', 'survival']);
    const run = new Set(ciCommands.flatMap((line) => projectsRun(line, scripts)));
    expect([...run].sort()).toEqual([...names].sort());
  });

  it('npm test is the inner loop (fast, fast-isolated); npm run test:slow the project beside it', () => {
    expect(projectsRun('npm test', scripts)).toEqual(['fast', 'fast-isolated']);
    expect(projectsRun('npm run test:slow', scripts)).toEqual(['slow']);
  });
});
