/**
 * PGlite data folders for CLI tests (and, loaded into memory, the template of the integration
 * tests: test/support/databases.ts). A fresh folder costs the first command writing the
 * ready-made database (src/engine/postgres/pglite-ready.ts; PGlite's initdb and every migration
 * when the build did not make it: about 4 s of CPU more); a test that is not about a fresh folder
 * starts from a copy of one migrated folder (39 MB, copied in well under a second), made by the
 * global setup while the first tests run (pglite-template.ts).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { inject, onTestFinished } from 'vitest';
import { pgliteTemplatePaths } from './pglite-template.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A `pglite:` URL of a new folder holding a migrated, empty database (no runs, no loads): what
 * a command's first open leaves behind, before the command's own run.
 */
export async function migratedPgliteDb(
  options: {
    removeAfterTest?: boolean;
    /**
     * A concurrent test's own `onTestFinished` (from its context): the imported one attaches to
     * whichever test the runner is in, and removed another test's folder while its CLI ran in it.
     */
    onTestFinished?: typeof onTestFinished;
  } = {},
): Promise<{ url: string; dataDir: string }> {
  const root = inject('testTempRoot');
  const { template, failure } = pgliteTemplatePaths(root);
  const deadline = Date.now() + 120_000;
  while (!existsSync(template)) {
    if (existsSync(failure)) throw new Error(readFileSync(failure, 'utf8'));
    if (Date.now() > deadline) throw new Error(`no migrated PGlite folder at ${template} after 120 s`);
    await sleep(100);
  }
  const folder = mkdtempSync(join(root, 'cli-'));
  const dataDir = join(folder, 'db');
  cpSync(template, dataDir, { recursive: true });
  // Removed when its test passed, beside the other tests' work: with the run's folder at the very
  // end, the removal of every test's copy took about 3 s on its own. A failed test may have left
  // work running on it (a command past its timeout): the run's folder takes it at the end.
  if (options.removeAfterTest !== false) {
    try {
      (options.onTestFinished ?? onTestFinished)(({ task }) => {
        if (task.result?.state === 'pass') rmSync(folder, { recursive: true, force: true });
      });
    } catch {
      // not inside a test: removed with the run's folder
    }
  }
  return { url: `pglite:${dataDir}`, dataDir };
}
