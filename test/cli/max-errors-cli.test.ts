import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HEADER, tempDir } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { runCli } from '../support/cli-run.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const run = (args: string[]) => runCli([...args, '--log-level', 'warn']);

describe.skipIf(unavailable(NEEDS.cli))('--max-errors and retry batches (built CLI, embedded PGlite)', () => {
  it('7 lines rejected while parsing with --max-errors 2: exit 1; with --max-errors 7: exit 2', async () => {
    const dir = tempDir();
    const file = `${dir}/bad.csv`;
    const rejected = Array.from({ length: 7 }, (_, i) => `P-${i},not-a-number,2026-01-01,1,JPY`);
    writeFileSync(file, `${HEADER}\n${rejected.join('\n')}\nG-1,1,2026-01-01,1,JPY\n`);
    const stopped = await run(['load', file, '--db', (await migratedPgliteDb()).url, '--max-errors', '2']);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toContain('more than --max-errors 2 rows rejected (7 line(s) rejected while staging');
    const allowed = await run(['load', file, '--db', (await migratedPgliteDb()).url, '--max-errors', '7']);
    expect(allowed.code).toBe(2);
  });

  it('retry --all-errors in batches of --chunk-size changes every row; the summary counts them all', async () => {
    const dir = tempDir();
    const { url: db } = await migratedPgliteDb();
    const file = `${dir}/orders.csv`;
    writeFileSync(file, `${HEADER}\n${Array.from({ length: 5 }, (_, i) => `E-${i},1,2026-01-01,,JPY`).join('\n')}\n`);
    expect((await run(['load', file, '--db', db])).code).toBe(2);
    const args = ['retry', '--db', db, '--all-errors', '--set', 'amount=1', '--reason', 'amounts resent', '--chunk-size', '2'];
    expect((await run([...args, '--dry-run'])).stdout).toContain('retry: would change 5 rows');
    const retry = await run(args);
    expect(retry.code).toBe(0);
    expect(retry.stdout).toContain('retry: changed 5 rows');
    const status = JSON.parse((await run(['status', '--db', db, '--json'])).stdout) as { counts: Array<{ status: string; count: number }> };
    expect(status.counts.filter((c) => c.status === 'DONE').reduce((n, c) => n + c.count, 0)).toBe(5);
  });
});
