/**
 * `bench --profile`: the synthetic file written in each example profile's shape
 * loads every row through that profile (pglite:memory): every line staged, none rejected, each
 * row DONE but those with a missing amount (VALIDATE) or an amount orders.amount cannot hold
 * (MERGE); a JSON Lines profile's file is one object per order. A profile the bench cannot
 * write is refused naming the key, before a database is made.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../src/bench/run-bench.js';
import { runCli } from '../support/cli-run.js';
import { tempDir, writeTestFile } from '../support/files.js';
import { TEST_PG_URL } from '../support/server-url.js';

const ROWS = 400;

async function bench(profile: string | null, db = 'pglite:memory'): Promise<BenchReport> {
  const chart = join(tempDir(), 'bench.svg');
  const args = ['bench', '--db', db, '--rows', String(ROWS), '--chunk-sizes', '500', '--workers', '1', '--chart', chart];
  const r = await runCli([...args, ...(profile === null ? [] : ['--profile', profile]), '--json', '--log-level', 'silent']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as BenchReport;
}

describe('bench --profile', () => {
  it.each(['eu-erp', 'headerless', 'mainframe-sjis', 'us-erp', 'web-shop'])(
    'examples/profiles/%s.yaml: every row loads through the profile',
    async (name) => {
      const report = await bench(`examples/profiles/${name}.yaml`);
      const [c] = report.cases;
      expect(report.profile?.name).toBe(name === 'headerless' ? 'legacy-jp' : name);
      expect(report.generated.missing).toBeGreaterThan(0);
      expect(c).toMatchObject({ rows: ROWS, rejected: 0 });
      expect((c?.done ?? 0) + (c?.error ?? 0)).toBe(ROWS);
      expect(c?.error).toBe(report.generated.missing + report.generated.overflow);
      // 12 positions cannot hold an amount too large for orders.amount
      if (name === 'mainframe-sjis') expect(report.generated.overflow).toBe(0);
    },
  );

  // the vocabulary's shapes: times and AM/PM, offsets in the profile's zone, currency signs, the currency from the sign or the file's name
  it.skipIf(TEST_PG_URL === null).each(['us-erp', 'web-shop'])(
    'examples/profiles/%s.yaml on PostgreSQL: every row loads through the profile',
    async (name) => {
      const report = await bench(`examples/profiles/${name}.yaml`, TEST_PG_URL ?? '');
      const [c] = report.cases;
      expect(c).toMatchObject({ rows: ROWS, rejected: 0 });
      expect(c?.error).toBe(report.generated.missing + report.generated.overflow);
      expect(report.profile?.notes.join('\n')).toMatch(
        name === 'us-erp' ? /given by the amount's sign/ : /from the file name shop_JPY_\d{8}\.tsv/,
      );
    },
  );

  // JSON Lines: the file written as one object per order, each field at its path
  it.each([['pglite:memory'], ...(TEST_PG_URL === null ? [] : [[TEST_PG_URL]])])(
    'examples/profiles/web-orders.yaml (JSON Lines) on %s: every row loads through the profile',
    async (db) => {
      const report = await bench('examples/profiles/web-orders.yaml', db);
      const [c] = report.cases;
      expect(report.profile?.name).toBe('web-orders');
      expect(c).toMatchObject({ rows: ROWS, rejected: 0 });
      expect(c?.error).toBe(report.generated.missing + report.generated.overflow);
    },
  );

  it('the same rows as the built-in format: the same outcome', async () => {
    const builtin = await bench(null);
    const eu = await bench('examples/profiles/eu-erp.yaml');
    expect(builtin.profile).toBeNull();
    expect(eu.generated).toEqual(builtin.generated);
    expect(eu.cases[0]).toMatchObject({ done: builtin.cases[0]?.done, error: builtin.cases[0]?.error, rejected: 0 });
  });

  it('a profile it cannot write is refused in one line naming the key, before any database is made', async () => {
    const profile = writeTestFile(
      'version: 1\nformat: fixed\ncolumns:\n  source_key: { at: [1, 2] }\n  customer_id: { at: [3, 8] }\n  order_date: { at: [11, 10] }\n  amount: { at: [21, 12] }\n  currency: { at: [33, 3] }\n',
      'narrow.yaml',
    );
    const db = join(tempDir(), 'db');
    const chart = join(tempDir(), 'c.svg');
    const r = await runCli([
      'bench',
      '--db',
      `pglite:${db}`,
      '--rows',
      '1000',
      '--profile',
      profile,
      '--chart',
      chart,
      '--log-level',
      'silent',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^order-loader: bench --profile \d+-narrow: columns\.source_key\.at: 2 positions cannot hold 1000 distinct keys\n$/,
    );
    expect(existsSync(db)).toBe(false);
  });

  it('a file the profile would not read back as written (two date masks reading a day two ways) is refused with its first rejected line', async () => {
    const profile = writeTestFile(
      'version: 1\ncolumns:\n  source_key: { column: k }\n  customer_id: { column: c }\n  order_date: { column: d, date: ["DD/MM/YYYY", "MM/DD/YYYY"] }\n  amount: { column: a }\n  currency: { column: x }\n',
      'ambiguous.yaml',
    );
    const chart = join(tempDir(), 'c.svg');
    const r = await runCli([
      'bench',
      '--db',
      'pglite:memory',
      '--rows',
      '50',
      '--profile',
      profile,
      '--chart',
      chart,
      '--log-level',
      'silent',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^order-loader: bench --profile \d+-ambiguous: the file written in the profile's shape does not read back through it \(line \d+: PARSE_ORDER_DATE: order_date: "\d\d\/\d\d\/\d{4}" is ambiguous: DD\/MM\/YYYY reads .*\)\n$/,
    );
    expect(existsSync(chart)).toBe(false);
  });
});
