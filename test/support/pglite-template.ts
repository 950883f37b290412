/**
 * The migrated PGlite folder the CLI tests copy and the integration tests' template is loaded
 * from (pglite-folders.ts, databases.ts), made once per test run in
 * the run's temporary folder by the global setup. No vitest API here: the global setup runs
 * outside the test workers.
 */
import { spawn } from 'node:child_process';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built bin: without it the CLI tests skip themselves and no migrated folder is made. */
export const CLI = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));

export function pgliteTemplatePaths(root: string): { template: string; failure: string; building: string } {
  return {
    template: join(root, 'pglite-migrated'),
    failure: join(root, 'pglite-migrated.failed'),
    building: join(root, 'pglite-migrated.building'),
  };
}

/**
 * Start making it: `status` on a new folder migrates it as any command's first open does, and
 * records no run. Returns the teardown's stop (it waits for the child to end).
 */
export function startMigratedPglite(root: string): () => Promise<void> {
  if (!existsSync(CLI)) return async () => undefined; // not built: the CLI tests skip themselves
  const { template, failure, building } = pgliteTemplatePaths(root);
  // --liftoff-only: see vitest.config.ts (a new folder's initdb and migrations: 5.6 s of CPU instead of 6.7 s)
  const child = spawn(process.execPath, ['--liftoff-only', CLI, 'status', '--db', `pglite:${building}`, '--log-level', 'warn'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let stopped = false;
  const exited = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      if (!stopped) {
        if (code === 0) renameSync(building, template);
        else writeFileSync(failure, `status on a new PGlite folder: exit ${String(code ?? signal)}\n${stderr}`);
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
