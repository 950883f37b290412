/**
 * The migrated PGlite folder the CLI tests copy and the integration tests' template is loaded
 * from (pglite-folders.ts, databases.ts), made once per test run in
 * the run's temporary folder by the global setup. No vitest API here: the global setup runs
 * outside the test workers.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * node's flags for a child running the bin: V8 compiles PGlite's WebAssembly with its baseline
 * compiler only, as in the test workers (vitest.config.ts). A short command otherwise spends
 * CPU re-optimizing postgres that it never uses: `status` on a migrated folder took 2.0 s of
 * CPU instead of 1.1 s; a new folder's initdb and migrations 5.6 s instead of 6.7 s. Only how V8
 * compiles changes, not what runs.
 */
export const CHILD_NODE_FLAGS = ['--liftoff-only'];

/** The built bin: without it the CLI tests skip themselves and no migrated folder is made. */
export const CLI = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));

export function pgliteTemplatePaths(root: string): { template: string; failure: string; building: string } {
  return {
    template: join(root, 'pglite-migrated'),
    failure: join(root, 'pglite-migrated.failed'),
    building: join(root, 'pglite-migrated.building'),
  };
}

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every file under `dir` (sorted), for a content hash. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** The first 16 hex digits of a hash of these files' names (from the repository root) and contents. */
function hashOfFiles(files: string[], start = ''): string {
  const hash = createHash('sha256').update(start);
  for (const file of files) hash.update(relative(REPO_ROOT, file)).update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

const CACHE = join(REPO_ROOT, 'node_modules/.cache/order-loader-tests');

/**
 * Where a migrated folder made by an earlier run waits, named after everything that decides
 * its content: PGlite's version (its initdb), the PostgreSQL migrations, and the built engine
 * code that opens and migrates a folder. A change to any of them makes a new one.
 */
export function cachedTemplatePath(): string {
  // the package's version and its initdb (package.json is not among its exports)
  const pgliteData = createRequire(import.meta.url).resolve('@electric-sql/pglite/pglite.data');
  const files = [
    join(dirname(pgliteData), '..', 'package.json'),
    ...filesUnder(join(REPO_ROOT, 'sql/postgres')),
    ...filesUnder(join(REPO_ROOT, 'dist/src/engine')),
    // which files are migrations, and the code that makes the folder here
    join(REPO_ROOT, 'dist/src/sql-files.js'),
    fileURLToPath(import.meta.url),
  ];
  return join(CACHE, `pglite-migrated-${hashOfFiles(files)}`);
}

/**
 * Start making it: `status` on a new folder migrates it as any command's first open does, and
 * records no run; the result is kept in node_modules/.cache for the next run, which copies it
 * instead (PGlite's initdb and the migrations: about 7 s at the start of every run, while the
 * first tests wait for it). Returns the teardown's stop (it waits for the child to end).
 */
export function startMigratedPglite(root: string): () => Promise<void> {
  if (!existsSync(CLI)) return async () => undefined; // not built: the CLI tests skip themselves
  const { template, failure, building } = pgliteTemplatePaths(root);
  const cached = cachedTemplatePath();
  if (existsSync(cached)) {
    try {
      usedNow(cached);
      cpSync(cached, building, { recursive: true });
      renameSync(building, template);
      return async () => undefined;
    } catch {
      rmSync(building, { recursive: true, force: true }); // pruned by another run meanwhile: made again below
    }
  }
  const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, CLI, 'status', '--db', `pglite:${building}`, '--log-level', 'warn'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let stopped = false;
  const exited = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      if (!stopped) {
        if (code === 0) {
          renameSync(building, template);
          keepForNextRun(cached, (partial) => cpSync(template, partial, { recursive: true }));
        } else writeFileSync(failure, `status on a new PGlite folder: exit ${String(code ?? signal)}\n${stderr}`);
      }
      resolve();
    });
  });
  return async () => {
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
}

/**
 * Where the dump the integration tests load their databases from (test/support/databases.ts)
 * waits for the next run: the migrated folder's, keyed further by the source that migrates and
 * dumps it in the test workers (the loader's source and the test support code).
 */
export function cachedTemplateDumpPath(): string {
  return `${cachedTemplatePath()}.${hashOfFiles([...filesUnder(join(REPO_ROOT, 'src')), ...filesUnder(join(REPO_ROOT, 'test/support'))])}.tar`;
}

/** Mark a cache entry used now: entries unused for an hour are pruned (keepForNextRun). */
export function usedNow(path: string): void {
  const now = new Date();
  utimesSync(path, now, now);
}

/**
 * Put an entry into the cache: `write` makes it under a temporary name, then one rename, so a
 * reader never sees half of it; then drop the entries of older code unused for an hour (a run
 * that uses one marks it: usedNow). A failure (another run kept it first, no room) keeps nothing:
 * the next run makes it again.
 */
export function keepForNextRun(path: string, write: (partial: string) => void): void {
  const partial = `${path}.${process.pid}.partial`;
  try {
    mkdirSync(CACHE, { recursive: true });
    write(partial);
    renameSync(partial, path);
    for (const name of readdirSync(CACHE)) {
      const other = join(CACHE, name);
      if (other !== path && Date.now() - statSync(other).mtimeMs > 3600_000) rmSync(other, { recursive: true, force: true });
    }
  } catch {
    rmSync(partial, { recursive: true, force: true });
  }
}
