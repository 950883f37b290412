/**
 * Writes the Oracle job's test count into docs/oracle.md (npm run docs:oracle-count, from the
 * repository's root): the tests `vitest list --mode list` names for
 * test/oracle-server/vitest.config.ts (plain `vitest list` leaves skipped tests out), by file,
 * between the oracle-job-count markers. Kept beside the bench's tooling so that build:emit
 * compiles it (dist/bench/oracle-job-count.js).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'oracle-job-count-'));
const out = join(dir, 'list.json');
try {
  const run = spawnSync('npx', ['vitest', 'list', '--config', 'test/oracle-server/vitest.config.ts', '--mode', 'list', `--json=${out}`], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (run.status !== 0) throw new Error(`vitest list failed (exit ${String(run.status)})`);
  const tests = JSON.parse(readFileSync(out, 'utf8')) as Array<{ file: string }>;
  const files = new Map<string, number>();
  for (const t of tests) {
    const file = relative(process.cwd(), t.file);
    files.set(file, (files.get(file) ?? 0) + 1);
  }
  const shared = [...files].filter(([f]) => f.startsWith('test/integration/'));
  const server = [...files].filter(([f]) => f.startsWith('test/oracle-server/'));
  const sum = (list: Array<[string, number]>) => list.reduce((n, [, c]) => n + c, 0);
  const text =
    `${tests.length} tests (counted by \`npx vitest list --config\n` +
    `test/oracle-server/vitest.config.ts --mode list\`, which names every one: plain \`vitest list\`\n` +
    `leaves skipped tests out; written here by \`npm run docs:oracle-count\`): ${sum(shared)} Oracle runs of ${shared.length} shared\n` +
    `integration files and the ${sum(server)} tests of \`test/oracle-server/\` (` +
    server.map(([f, c]) => `${f.replace(/^test\/oracle-server\/|\.test\.ts$/g, '')} ${c}`).join(', ') +
    ').';
  const doc = readFileSync('docs/oracle.md', 'utf8');
  const marked = /<!-- oracle-job-count -->[\s\S]*?<!-- \/oracle-job-count -->/;
  if (!marked.test(doc)) throw new Error('docs/oracle.md has no oracle-job-count markers');
  writeFileSync('docs/oracle.md', doc.replace(marked, `<!-- oracle-job-count -->${text}<!-- /oracle-job-count -->`));
  process.stdout.write(`${text}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
