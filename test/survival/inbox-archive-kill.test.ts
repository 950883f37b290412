/**
 * kill -9 between the commit that ends a load and the move of its files to --archive-dir: the
 * files stay in the inbox (never lost, never in two places, never archived unfinished), and the
 * next run recognises them by their content, stages nothing twice, and archives them.
 *
 * The CLI is held at that instant by ORDER_LOADER_TEST_HOLD_BEFORE_MOVE_MS (src/pipeline/archive.ts),
 * which logs "holding before the moves" once the run's end is committed. PGlite always; server
 * PostgreSQL too when ORDER_LOADER_TEST_PG is set. Also (server PostgreSQL, watched while it
 * runs): a .csv.gz killed while staging resumes at a checkpoint's offset into its content.
 * Run it alone:
 *   npm run build && npx vitest run --project survival test/survival/inbox-archive-kill.test.ts
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { OrderLoader } from '../../src/loader.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { PG_ADMIN_URL, PG_SKIP_REASON, assertBuilt, freshServerDb, sleep, startCli, survivalPath } from './harness.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const ROWS = 3000;

function orders(prefix: string): string {
  const lines = Array.from({ length: ROWS }, (_, i) => `${prefix}-${String(i).padStart(5, '0')},${i + 1},2026-03-01,${i}.25,EUR`);
  return `source_key,customer_id,order_date,amount,currency\n${lines.join('\n')}\n`;
}

const targets: Array<{ kind: string; create(): Promise<{ url: string; dispose(): Promise<void> }> }> = [
  { kind: 'pglite', create: async () => ({ url: (await migratedPgliteDb()).url, dispose: () => Promise.resolve() }) },
  ...(PG_ADMIN_URL === null ? [] : [{ kind: 'postgres', create: () => freshServerDb() }]),
];

/** Every run of the database: its status, and whether it read its file (a 'staged' event not skipped). */
async function runsOf(url: string) {
  const loader = await OrderLoader.open({ db: url, env: {}, lockTimeoutMs: 60_000 });
  try {
    return (await loader.runs(100)).map((r) => ({
      file: r.fileName?.split('/').pop() ?? null,
      status: r.status,
      read: r.events.some((e) => e.event === 'staged' && (e.detail as { skipped?: boolean } | null)?.skipped !== true),
    }));
  } finally {
    await loader.close();
  }
}

describe('survival: kill -9 between the final commit and the archive move', () => {
  for (const target of targets) {
    it(`${target.kind}: the files stay in the inbox, the next run stages nothing twice and archives them`, async () => {
      assertBuilt();
      const { url, dispose } = await target.create();
      try {
        const base = survivalPath('inbox-kill');
        const inbox = join(base, 'inbox');
        const archive = join(base, 'archive');
        mkdirSync(inbox, { recursive: true });
        writeFileSync(join(inbox, 'a.csv.gz'), gzipSync(Buffer.from(orders('KA'))));
        writeFileSync(join(inbox, 'b.csv'), orders('KB'));
        const args = ['load', inbox, '--db', url, '--archive-dir', archive, '--batch-size', '500', '--log-level', 'info', '--settle', '0'];

        const run = startCli(args, { env: { ORDER_LOADER_TEST_HOLD_BEFORE_MOVE_MS: '120000' } });
        const held = await run.waitFor(/holding before the moves/);
        expect(held, (await Promise.race([run.done, Promise.resolve(null)]))?.stderr).toBe(true);
        run.child.kill('SIGKILL');
        const killed = await run.done;
        expect(killed.signal).toBe('SIGKILL');

        // the end was committed, nothing was moved: each file in the inbox only, the stale inbox lock left behind
        expect(readdirSync(inbox).sort()).toEqual(['.order-loader-inbox.lock', 'a.csv.gz', 'b.csv']);
        expect(existsSync(archive) ? readdirSync(archive) : []).toEqual([]);
        const before = await runsOf(url);
        expect(before.filter((r) => r.file !== null).sort((x, y) => String(x.file).localeCompare(String(y.file)))).toEqual([
          { file: 'a.csv.gz', status: 'COMPLETED', read: true },
          { file: 'b.csv', status: 'COMPLETED', read: true },
        ]);

        const rerun = await startCli([...args, '--json']).done;
        expect(rerun.code, rerun.stderr).toBe(0);
        const report = JSON.parse(rerun.stdout) as {
          files: Array<{ skipped: string | null; counts: { read: number } }>;
          archived: unknown[];
        };
        expect(report.files.map((f) => [f.skipped?.includes('already staged'), f.counts.read])).toEqual([
          [true, 0],
          [true, 0],
        ]);
        expect(report.archived).toHaveLength(2);
        // the stale lock was taken over and removed; each file once, in the archive only
        expect(readdirSync(inbox)).toEqual([]);
        expect(
          readdirSync(archive)
            .map((n) => n.replace(/^load\d+-/, ''))
            .sort(),
        ).toEqual(['a.csv.gz', 'b.csv']);
        const after = await runsOf(url);
        expect(
          after
            .filter((r) => r.read)
            .map((r) => r.file)
            .sort(),
        ).toEqual(['a.csv.gz', 'b.csv']);
        const loader = await OrderLoader.open({ db: url, env: {}, lockTimeoutMs: 60_000 });
        try {
          const counts = (await loader.status()).counts;
          expect(counts.reduce((n, c) => n + (c.status === 'DONE' ? c.count : 0), 0)).toBe(2 * ROWS);
          expect(counts.every((c) => c.status === 'DONE')).toBe(true);
        } finally {
          await loader.close();
        }
      } finally {
        await dispose();
      }
    });
  }

  // a server database can be watched while the loader runs: the kill lands after a committed checkpoint
  it.skipIf(unavailable(NEEDS.server))(
    `postgres: a .csv.gz killed while staging resumes after its last checkpoint (an offset into its content), and ends as a clean load${PG_ADMIN_URL === null ? ` (${PG_SKIP_REASON})` : ''}`,
    async () => {
      assertBuilt();
      const db = await freshServerDb();
      try {
        const rows = 40 * ROWS;
        const lines = Array.from({ length: rows }, (_, i) => `KZ-${String(i).padStart(6, '0')},${i + 1},2026-03-01,${i}.25,EUR`);
        const text = `source_key,customer_id,order_date,amount,currency\n${lines.join('\n')}\n`;
        const base = survivalPath('inbox-gz-kill');
        const inbox = join(base, 'inbox');
        const archive = join(base, 'archive');
        mkdirSync(inbox, { recursive: true });
        writeFileSync(join(inbox, 'big.csv.gz'), gzipSync(Buffer.from(text)));
        const args = [
          'load',
          inbox,
          '--db',
          db.url,
          '--archive-dir',
          archive,
          '--batch-size',
          '200',
          '--log-level',
          'info',
          '--settle',
          '0',
        ];

        const run = startCli(args);
        const checkpoints = () =>
          db.sql<{ n: number }>("SELECT count(*)::int AS n FROM load_run_event WHERE event = 'staged_checkpoint'").catch(() => [{ n: 0 }]);
        const deadline = Date.now() + 120_000;
        while (((await checkpoints())[0]?.n ?? 0) < 3 && Date.now() < deadline && run.child.exitCode === null) await sleep(20);
        run.child.kill('SIGKILL');
        const killed = await run.done;
        expect(killed.signal, killed.stderr).toBe('SIGKILL');
        expect(readdirSync(inbox).filter((n) => !n.startsWith('.'))).toEqual(['big.csv.gz']);
        const staged = (await db.sql<{ n: number }>('SELECT count(*)::int AS n FROM order_stage'))[0]?.n ?? 0;
        expect(staged).toBeGreaterThan(0);
        expect(staged).toBeLessThan(rows);

        const rerun = await startCli([...args, '--json']).done;
        expect(rerun.code, rerun.stderr).toBe(0);
        const report = JSON.parse(rerun.stdout) as {
          files: Array<{ resumedAt: { line: number; byte: number } | null; counts: { read: number } }>;
        };
        const resumedAt = report.files[0]?.resumedAt;
        expect(resumedAt).not.toBeNull();
        // the offset is the end of line `resumedAt.line` in the decompressed text
        expect(resumedAt?.byte).toBe(Buffer.byteLength(text.split('\n').slice(0, resumedAt!.line).join('\n')) + 1);
        expect(report.files[0]?.counts.read).toBe(rows);
        expect(await db.sql('SELECT process_status, count(*)::int AS n FROM order_stage GROUP BY 1')).toEqual([
          { process_status: 'DONE', n: rows },
        ]);
        expect(await db.sql('SELECT count(*)::int AS n FROM orders')).toEqual([{ n: rows }]);
        expect(readdirSync(inbox).filter((n) => !n.startsWith('.'))).toEqual([]);
        expect(readdirSync(archive)).toHaveLength(1);
      } finally {
        await db.dispose();
      }
    },
  );
});
