/**
 * What a command loads before it reads a line: a `load --dry-run` (or any load) starts without
 * the review page's server and pages (hono) and without guess's detectors, which only `serve` and
 * `guess` use. Each module costs start-up time on every run (the dry run of a 3-line file took
 * 0.06 s more CPU than before the format readers, bench/RESULTS.md run 37). The modules are
 * recorded by a module resolve hook registered in the child (node --import).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/cli-run.js';
import { tempDir } from '../support/files.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const HOOKS = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.RECORD_IMPORTS, resolved.url + '\\n');
  return resolved;
}
`;

/** The module URLs the CLI resolves running `args`. */
function importsOf(args: string[]): string[] {
  const dir = tempDir();
  const hooks = join(dir, 'hooks.mjs');
  const register = join(dir, 'register.mjs');
  const record = join(dir, 'imports.txt');
  writeFileSync(hooks, HOOKS);
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`);
  writeFileSync(record, '');
  const run = spawnSync(process.execPath, ['--import', register, join(REPO_ROOT, 'dist/src/cli.js'), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, RECORD_IMPORTS: record },
    encoding: 'utf8',
  });
  expect([0, 2], run.stderr).toContain(run.status);
  return [
    ...new Set(
      readFileSync(record, 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
    ),
  ];
}

describe.skipIf(unavailable(NEEDS.cli))('what a command loads', () => {
  it('a dry run loads neither the review page (hono, src/serve) nor guess (src/input/guess beyond its format sniff)', () => {
    const loaded = importsOf(['load', 'fixtures/orders-sample.csv', '--dry-run', '--log-level', 'silent']);
    expect(loaded.some((u) => u.includes('/dist/src/pipeline/'))).toBe(true); // the hook saw the loader's modules
    expect(loaded.filter((u) => /\/node_modules\/(hono|@hono)\/|\/dist\/src\/serve\//.test(u))).toEqual([]);
    expect(loaded.filter((u) => u.includes('/dist/src/input/guess/') && !u.endsWith('/guess/formats.js'))).toEqual([]);
  });
});
