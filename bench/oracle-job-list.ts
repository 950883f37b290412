/**
 * The tests the Oracle job runs (test/oracle-server/vitest.config.ts), as `vitest list --mode
 * list` names them (plain `vitest list` leaves skipped tests out, and without a server every
 * Oracle test is skipped), and the sentence docs/oracle.md says of them between its
 * oracle-job-count markers: written by npm run docs:oracle-count, checked by
 * test/oracle/job-list.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

/** The Oracle job's tests' files, relative to `root`, one entry per test. */
export function oracleJobTestFiles(root: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'oracle-job-list-'));
  const out = join(dir, 'list.json');
  try {
    const args = ['vitest', 'list', '--config', 'test/oracle-server/vitest.config.ts', '--mode', 'list', `--json=${out}`];
    const run = spawnSync('npx', args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    if (run.status !== 0) throw new Error(`vitest list failed (exit ${String(run.status)})`);
    return (JSON.parse(readFileSync(out, 'utf8')) as Array<{ file: string }>).map((t) => relative(root, t.file));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The count's sentence, from the tests' files (one entry per test). */
export function oracleJobCountText(testFiles: readonly string[]): string {
  const files = new Map<string, number>();
  for (const file of testFiles) files.set(file, (files.get(file) ?? 0) + 1);
  const shared = [...files].filter(([f]) => f.startsWith('test/integration/'));
  const server = [...files].filter(([f]) => f.startsWith('test/oracle-server/'));
  const sum = (list: Array<[string, number]>) => list.reduce((n, [, c]) => n + c, 0);
  return (
    `${testFiles.length} tests (counted by \`npx vitest list --config\n` +
    `test/oracle-server/vitest.config.ts --mode list\`, which names every one: plain \`vitest list\`\n` +
    `leaves skipped tests out; written here by \`npm run docs:oracle-count\`): ${sum(shared)} Oracle runs of ${shared.length} shared\n` +
    `integration files and the ${sum(server)} tests of \`test/oracle-server/\` (` +
    server.map(([f, c]) => `${f.replace(/^test\/oracle-server\/|\.test\.ts$/g, '')} ${c}`).join(', ') +
    ').'
  );
}

export const COUNT_MARKERS = /<!-- oracle-job-count -->([\s\S]*?)<!-- \/oracle-job-count -->/;
