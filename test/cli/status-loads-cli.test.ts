/**
 * `status` shows the recent loads with their file and start and counts the others; --all,
 * --load-id and --since show others.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { HEADER, tempDir } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { CLI as cli, runCli } from '../support/cli-run.js';

const LOADS = 12;
let db = '';

/** The load lines of status's table: their load id and file. */
function loadLines(stdout: string): Array<{ load: string; file: string }> {
  return stdout
    .split('\n')
    .filter((l) => /^\s*\d+\s+\d{4}-\d\d-\d\dT/.test(l))
    .map((l) => {
      const cells = l.trim().split(/\s+/);
      return { load: cells[0] ?? '', file: cells[cells.length - 1] ?? '' };
    });
}

describe.skipIf(!existsSync(cli))('status: recent loads, the rest counted', () => {
  beforeAll(async () => {
    db = (await migratedPgliteDb()).url;
    const inbox = join(tempDir(), 'inbox');
    mkdirSync(inbox);
    for (let i = 1; i <= LOADS; i++)
      writeFileSync(join(inbox, `day${String(i).padStart(2, '0')}.csv`), `${HEADER}\nK${i},1,2026-01-01,1.00,JPY\n`);
    const load = await runCli(['load', inbox, '--settle', '0', '--db', db]);
    expect(load.code).toBe(0);
  }, 240_000);

  it('by default the 10 newest loads with their file and start, and a count of the others', async () => {
    const result = await runCli(['status', '--db', db]);
    expect(result.code).toBe(0);
    const loads = loadLines(result.stdout);
    expect(loads).toHaveLength(10);
    expect(loads.map((l) => l.file.replace(/^.*\//, ''))).toEqual(
      Array.from({ length: 10 }, (_, i) => `day${String(i + 3).padStart(2, '0')}.csv`),
    );
    expect(result.stdout).toMatch(/^load\s+started\s+READY\s+PROCESSING\s+RETRY_WAIT\s+DONE\s+ERROR\s+file$/m);
    expect(result.stdout).toMatch(/^total\s+\(12 loads\)\s+0\s+0\s+0\s+12\s+0$/m);
    expect(result.stdout).toContain(
      '2 other loads not shown (counted in total): status --all shows every load, --load-id <n> or --since <when> some',
    );
  });

  it('--all shows every load; --load-id the loads named; --since those started since then', async () => {
    expect(loadLines((await runCli(['status', '--all', '--db', db])).stdout)).toHaveLength(LOADS);
    const one = await runCli(['status', '--load-id', '1', '--db', db]);
    expect(loadLines(one.stdout).map((l) => l.load)).toEqual(['1']);
    expect(one.stdout).toContain('11 other loads not shown');
    expect(loadLines((await runCli(['status', '--since', '1h', '--db', db])).stdout)).toHaveLength(LOADS);
    const none = await runCli(['status', '--since', '2999-01-01', '--db', db]);
    expect(loadLines(none.stdout)).toEqual([]);
    expect(none.stdout).toContain('12 other loads not shown');
  });

  it('--json has the loads shown with their file and start, and how many others there are', async () => {
    const result = await runCli(['status', '--json', '--db', db]);
    const doc = JSON.parse(result.stdout) as { loads: Array<{ loadId: number; fileName: string; startedAt: string }>; otherLoads: number };
    expect(doc.loads).toHaveLength(10);
    expect(doc.otherLoads).toBe(2);
    expect(doc.loads[0]?.fileName).toMatch(/day03\.csv$/);
    expect(Number.isNaN(Date.parse(doc.loads[0]?.startedAt ?? ''))).toBe(false);
  });

  it('--since refuses what is not a moment', async () => {
    const result = await runCli(['status', '--since', 'yesterday', '--db', db]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--since takes a date (2026-01-31), a time (2026-01-31T06:00Z) or a duration ago (30m, 12h, 7d)');
  });
});
