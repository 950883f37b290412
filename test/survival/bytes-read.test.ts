/**
 * The bytes staged are the bytes hashed: a sender renames a new file over the name while the load
 * reads the old one's identity (held there by ORDER_LOADER_TEST_IDENTITY_DELAY_MS,
 * src/input/file-digest.ts, which says so on stderr). The old content was staged under the new
 * content's sha256: the next run said "already staged", archived the new file, exit 0, its rows
 * never loaded. Now each file is read through one descriptor: whatever the first run made of the
 * old file, the new file's rows are loaded by the next run, and it ends in the archive.
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set. Run it alone:
 *   npm run build && npx vitest run --project survival test/survival/bytes-read.test.ts
 */
import { PGlite } from '@electric-sql/pglite';
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { HEADER } from '../support/files.js';
import { PG_ADMIN_URL, assertBuilt, freshServerDb, startCli, survivalPath } from './harness.js';

const OLD = `${HEADER}\nN-1,1,2026-01-01,1.00,EUR\nN-2,2,2026-01-02,2.00,EUR\n`;
const NEW = `${HEADER}\nN-1,1,2026-01-01,10.00,EUR\nN-3,3,2026-01-03,30.00,EUR\nN-4,4,2026-01-04,40.00,EUR\n`;

type Rows = Array<Record<string, unknown>>;
const ORDERS = 'SELECT source_key, amount::text AS amount FROM orders ORDER BY source_key';

const targets: Array<{ kind: string; create(): Promise<{ url: string; orders(): Promise<Rows>; dispose(): Promise<void> }> }> = [
  {
    kind: 'pglite',
    create: async () => {
      const { url, dataDir } = await migratedPgliteDb();
      return {
        url,
        // read after the CLI ended (a PGlite folder is one process's at a time)
        orders: async () => {
          const db = await PGlite.create(dataDir);
          try {
            return (await db.query<Record<string, unknown>>(ORDERS)).rows;
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
            return { url: db.url, orders: () => db.sql(ORDERS), dispose: () => db.dispose() };
          },
        },
      ]),
];

describe('survival: a file renamed over the name while its identity is read', () => {
  for (const target of targets) {
    for (const command of ['load', 'stage'] as const) {
      it(`${target.kind}, ${command}: the new file's rows are loaded by the next run, never "already staged"`, async () => {
        assertBuilt();
        const db = await target.create();
        try {
          const base = survivalPath(`bytes-read-rename-${target.kind}-${command}`);
          const inbox = join(base, 'inbox');
          const archive = join(base, 'archive');
          mkdirSync(inbox, { recursive: true });
          const path = join(inbox, 'orders.csv');
          writeFileSync(path, OLD);
          const args = (cmd: string) => [cmd, inbox, '--db', db.url, '--archive-dir', archive, '--settle', '0', '--log-level', 'warn'];
          const run = startCli(args(command), { env: { ORDER_LOADER_TEST_IDENTITY_DELAY_MS: '3000' } });
          expect(await run.waitFor(/reading the identity of .*orders\.csv/)).toBe(true);
          // the upload method docs/nightly.md recommends: write aside, rename over the name
          const aside = join(inbox, '.orders.csv.part');
          writeFileSync(aside, NEW);
          renameSync(aside, path);
          const first = await run.done;
          expect(first.code, first.stderr).not.toBe(1);

          const second = await startCli(args('load')).done;
          expect(second.code, second.stderr).toBe(0);
          expect(second.stderr).not.toMatch(/already staged/);
          const orders = await db.orders();
          // the new file's rows, whatever the first run made of the old one (N-2)
          expect(orders.filter((r) => r.source_key !== 'N-2')).toEqual([
            { source_key: 'N-1', amount: '10.00' },
            { source_key: 'N-3', amount: '30.00' },
            { source_key: 'N-4', amount: '40.00' },
          ]);
          expect(readdirSync(inbox)).toEqual([]);
        } finally {
          await db.dispose();
        }
      });
    }
  }
});
