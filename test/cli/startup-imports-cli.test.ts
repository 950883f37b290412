/**
 * What a command loads before it reads a line. Each module costs start-up time on every run
 * (bench/RESULTS.md, runs 37, 40 and 43: a dry run of a 3-line file is mostly Node's start and
 * the imports). A `load --dry-run` needs no database: no driver (pg, PGlite, oracledb), no
 * engine, no loader pipeline; without a profile, no YAML parser; no CSV writer (only `errors`
 * writes CSV); no xlsx or JSON Lines reader for a CSV file; neither the review page's server
 * (hono) nor guess's detectors. A `load` into PGlite loads PGlite, and no other engine's driver.
 * The modules are recorded in the child (node --import): every ES module by a resolve hook
 * (static and dynamic imports), every CommonJS module by the require cache at exit (a package
 * required lazily, as the YAML parser is, is seen there and not by the hook).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/cli-run.js';
import { tempDir } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const HOOKS = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.RECORD_IMPORTS, resolved.url + '\\n');
  return resolved;
}
`;

/** Registers the hook, and writes the CommonJS modules loaded when the process exits. */
const REGISTER = (hooks: string) => `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
register(${JSON.stringify(pathToFileURL(hooks).href)});
const cache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  appendFileSync(process.env.RECORD_IMPORTS, Object.keys(cache).map((path) => pathToFileURL(path).href + '\\n').join(''));
});
`;

/** The module URLs the CLI loads running `args`. */
function importsOf(args: string[]): string[] {
  const dir = tempDir();
  const hooks = join(dir, 'hooks.mjs');
  const register = join(dir, 'register.mjs');
  const record = join(dir, 'imports.txt');
  writeFileSync(hooks, HOOKS);
  writeFileSync(register, REGISTER(hooks));
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

/** The loaded modules of a package (under its node_modules folder). */
const ofPackage = (loaded: string[], ...names: string[]) =>
  loaded.filter((u) => names.some((name) => u.includes(`/node_modules/${name}/`)));

/** The loaded modules of the build under a folder of dist/src. */
const ofBuild = (loaded: string[], folder: string) => loaded.filter((u) => u.includes(`/dist/src/${folder}`));

const DRIVERS = ['pg', 'pg-pool', 'pg-protocol', '@electric-sql/pglite', 'oracledb'];

describe.skipIf(unavailable(NEEDS.cli))('what a command loads', () => {
  it('a dry run loads neither the review page (hono, src/serve) nor guess (src/input/guess beyond its format sniff)', () => {
    const loaded = importsOf(['load', 'fixtures/orders-sample.csv', '--dry-run', '--log-level', 'silent']);
    expect(loaded.some((u) => u.includes('/dist/src/pipeline/'))).toBe(true); // the hook saw the loader's modules
    expect(loaded.filter((u) => /\/node_modules\/(hono|@hono)\/|\/dist\/src\/serve\//.test(u))).toEqual([]);
    expect(loaded.filter((u) => u.includes('/dist/src/input/guess/') && !u.endsWith('/guess/formats.js'))).toEqual([]);
  });

  it('a dry run of a CSV file loads no database driver, no engine, no loader pipeline, no YAML parser, CSV writer or xlsx and JSON Lines reader', () => {
    const loaded = importsOf(['load', 'fixtures/orders-sample.csv', '--dry-run', '--log-level', 'silent']);
    // the recording sees CommonJS packages too: the dry run's option checks (zod) and logger (pino)
    expect(ofPackage(loaded, 'zod').length).toBeGreaterThan(0);
    expect(ofPackage(loaded, 'pino').length).toBeGreaterThan(0);
    expect(ofPackage(loaded, ...DRIVERS)).toEqual([]);
    // no engine: of the engines' folders, the bin's WebAssembly setting and the URL parser's Oracle options only
    expect(
      loaded.filter((u) => /\/dist\/src\/engine\/(postgres|oracle)\//.test(u) && !/\/(pglite-assets|connect-options)\.js$/.test(u)),
    ).toEqual([]);
    expect(loaded.filter((u) => /\/dist\/src\/(loader|pipeline\/load|pipeline\/stage|pipeline\/process)\.js$/.test(u))).toEqual([]);
    expect(ofPackage(loaded, 'yaml', 'csv-stringify', 'exceljs', 'unzipper')).toEqual([]);
    expect(loaded.filter((u) => /\/dist\/src\/input\/formats\/(xlsx|jsonl)\.js$/.test(u))).toEqual([]);
  });

  it('a dry run with a profile reads it with the YAML parser, and a JSON Lines profile loads its reader', () => {
    const loaded = importsOf([
      'load',
      'examples/profiles/web-orders.jsonl',
      '--profile',
      'examples/profiles/web-orders.yaml',
      '--dry-run',
      '--log-level',
      'silent',
    ]);
    expect(ofPackage(loaded, 'yaml').length).toBeGreaterThan(0);
    expect(loaded.filter((u) => u.endsWith('/dist/src/input/formats/jsonl.js'))).toHaveLength(1);
    expect(ofPackage(loaded, ...DRIVERS)).toEqual([]);
  });

  it('a load into PGlite loads PGlite and no other engine’s driver, no YAML parser and no CSV writer', async () => {
    const { url } = await migratedPgliteDb();
    const loaded = importsOf(['load', 'fixtures/orders-sample.csv', '--db', url, '--log-level', 'silent']);
    expect(ofPackage(loaded, '@electric-sql/pglite').length).toBeGreaterThan(0);
    expect(ofPackage(loaded, 'pg', 'pg-pool', 'oracledb')).toEqual([]);
    expect(ofBuild(loaded, 'engine/oracle/').filter((u) => !u.endsWith('/connect-options.js'))).toEqual([]);
    expect(ofPackage(loaded, 'yaml', 'csv-stringify')).toEqual([]);
  });
});
