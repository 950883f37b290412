/**
 * kill -9 a `load` of an inbox (a.csv: LWW-1 at 100 and a rejected line; then
 * b.csv: LWW-1 at 200) at every step of its journal, then load the inbox again: whatever step the
 * kill hit, the later file's value wins, each rejected line is logged once, both files end in the
 * archive. Also a second kill right after the rerun's 'resumed' event, before its first batch.
 *
 * The CLI is held at a step by ORDER_LOADER_TEST_HOLD_AFTER=<step>:<n> (src/pipeline/test-hold.ts),
 * which logs "holding after <step> #<n>" once that step is committed: every kill asserts that line.
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set. Run it alone:
 *   npm run build && npx vitest run --project survival test/survival/journal-kill.test.ts
 */
import { PGlite } from '@electric-sql/pglite';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, type onTestFinished } from 'vitest';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { HEADER } from '../support/files.js';
import { PG_ADMIN_URL, assertBuilt, freshServerDb, startCli, survivalPath } from './harness.js';

const A = `${HEADER}\nLWW-1,1,2026-01-01,100.00,EUR\nA-1,2,2026-01-02,1.00,EUR\nA-2,3,2026-01-03,2.00\nA-3,4,2026-01-04,3.00,EUR\nA-4,5,2026-01-05,4.00,EUR\n`;
const B = `${HEADER}\nLWW-1,1,2026-01-01,200.00,EUR\nB-1,6,2026-01-06,5.00,EUR\n`;

/**
 * Every step of the journal of the load of a.csv then b.csv in batches of 2, in order: a's run
 * row, its invoked event, its three checkpoints, staged; then b's; processing; the ends.
 */
const STEPS = [
  'run_started:1',
  'invoked:1',
  'staged_checkpoint:1',
  'staged_checkpoint:2',
  'staged_checkpoint:3',
  'staged:1',
  'run_started:2',
  'invoked:2',
  'staged_checkpoint:4',
  'staged:2',
  'processed:1',
  'processed:2',
  'completed:1',
  'completed:2',
];

type Sql = (text: string) => Promise<Array<Record<string, unknown>>>;

const targets: Array<{
  kind: string;
  create(
    finished: typeof onTestFinished,
  ): Promise<{ url: string; sql: (fn: (sql: Sql) => Promise<void>) => Promise<void>; dispose(): Promise<void> }>;
}> = [
  {
    kind: 'pglite',
    create: async (finished) => {
      const { url, dataDir } = await migratedPgliteDb({ onTestFinished: finished });
      return {
        url,
        // read after the CLI ended (a PGlite folder is one process's at a time)
        sql: async (fn) => {
          const db = await PGlite.create(dataDir);
          try {
            await fn(async (text) => (await db.query<Record<string, unknown>>(text)).rows);
          } finally {
            await db.close();
          }
        },
        dispose: () => Promise.resolve(),
      };
    },
  },
  ...(PG_ADMIN_URL === null
    ? []
    : [
        {
          kind: 'postgres',
          create: async () => {
            const db = await freshServerDb();
            return { url: db.url, sql: (fn: (sql: Sql) => Promise<void>) => fn((text) => db.sql(text)), dispose: () => db.dispose() };
          },
        },
      ]),
];

async function killAt(args: string[], step: string): Promise<void> {
  const run = startCli(args, { env: { ORDER_LOADER_TEST_HOLD_AFTER: step } });
  const held = await run.waitFor(new RegExp(`holding after ${step.replace(':', ' #')} `));
  if (!held) {
    const result = await run.done;
    expect.fail(`${step}: the load ended (exit ${String(result.code)}) without reaching that step\n${result.stderr}`);
  }
  run.child.kill('SIGKILL');
  expect((await run.done).signal, step).toBe('SIGKILL');
}

// concurrent: each test has its own folders and database, and every kill waits for a logged step,
// not an instant, so tests sharing the cores change no outcome (the file took 109 s one at a time)
describe.concurrent('survival: kill -9 at every step of the journal of a load of two files', () => {
  const kills: Array<string[]> = [
    ...STEPS.map((s) => [s]),
    // a second kill right after a resume started, or after its run row only
    ['staged_checkpoint:2', 'resumed:1'],
    ['staged_checkpoint:2', 'run_started:1'],
    // the issue as reported: both files staged (not archived), then a rerun killed before it wrote a
    // staging fact of a.csv: a.csv must not be staged again over b.csv's value
    ['completed:2', 'run_started:1'],
    ['completed:2', 'invoked:1'],
    ['staged:2', 'run_started:1'],
  ];
  for (const target of targets) {
    for (const plan of kills) {
      it(`${target.kind}: killed after ${plan.join(', then after ')}: the rerun stages no older value over a later one`, async ({
        onTestFinished,
      }) => {
        assertBuilt();
        const db = await target.create(onTestFinished);
        try {
          const base = survivalPath(`journal-kill-${plan.join('-').replace(/:/g, '')}`);
          const inbox = join(base, 'inbox');
          const archive = join(base, 'archive');
          mkdirSync(inbox, { recursive: true });
          writeFileSync(join(inbox, 'a.csv'), A);
          writeFileSync(join(inbox, 'b.csv'), B);
          const args = [
            'load',
            inbox,
            '--db',
            db.url,
            '--archive-dir',
            archive,
            '--settle',
            '0',
            '--batch-size',
            '2',
            '--log-level',
            'warn',
          ];
          for (const step of plan) await killAt(args, step);

          const what = plan.join(' then ');
          const rerun = await startCli([...args, '--json']).done;
          // a.csv's rejected line is counted whether a.csv was staged, resumed or skipped: exit 2
          expect(rerun.code, `${what}\n${rerun.stderr}`).toBe(2);
          expect(
            readdirSync(inbox).filter((n) => !n.startsWith('.')),
            what,
          ).toEqual([]);
          expect(
            readdirSync(archive)
              .map((n) => n.replace(/^load\d+-/, ''))
              .sort(),
            what,
          ).toEqual(['a.csv', 'b.csv']);
          await db.sql(async (sql) => {
            expect(await sql("SELECT amount::text AS amount FROM orders WHERE source_key = 'LWW-1'"), what).toEqual([{ amount: '200.00' }]);
            expect(await sql('SELECT count(*)::int AS n FROM orders'), what).toEqual([{ n: 5 }]);
            expect(
              await sql("SELECT line_no::int AS line_no, count(*)::int AS n FROM order_bulk_error WHERE phase = 'PARSE' GROUP BY line_no"),
              what,
            ).toEqual([{ line_no: 4, n: 1 }]);
            expect(await sql("SELECT count(*)::int AS n FROM order_stage WHERE process_status <> 'DONE'"), what).toEqual([{ n: 0 }]);
          });
        } finally {
          await db.dispose();
        }
      }, 120_000);
    }
  }
});
