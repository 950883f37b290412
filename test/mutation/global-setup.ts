/**
 * The mutation run's global setup: only the run's temporary folder (inject('testTempRoot'),
 * test/support/files.ts), removed at the end. No PGlite folder, no server template: the tests
 * Stryker runs use no database (test/mutation/vitest.config.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

export default function setup(project: TestProject): () => void {
  const tempRoot = mkdtempSync(join(tmpdir(), 'order-loader-mutation-'));
  project.provide('testTempRoot', tempRoot);
  project.provide('testRunTag', Date.now().toString(36));
  return () => rmSync(tempRoot, { recursive: true, force: true });
}
