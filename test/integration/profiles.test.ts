/**
 * Load profiles end to end: the three examples of examples/profiles/, the morning-after
 * loop of a file read through a profile (export, fix one cell, load back without a profile), and
 * the profile as part of a file's identity.
 */
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { errorsToCsv } from '../../src/cli/errors-csv.js';
import { BUILTIN_PROFILE } from '../../src/input/profile/builtin.js';
import { loadProfileFile, parseProfileText } from '../../src/input/profile/load-profile.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { writeTestFile } from '../support/files.js';

const example = (name: string) => fileURLToPath(new URL(`../../examples/profiles/${name}`, import.meta.url));

interface OrderRow {
  source_key: string;
  customer_id: number;
  order_date: string;
  amount: string;
  currency: string;
}
const ORDERS =
  "SELECT source_key, customer_id::int AS customer_id, to_char(order_date, 'YYYY-MM-DD') AS order_date, amount::text AS amount, currency FROM orders ORDER BY source_key";

forEachTarget('load profiles on $kind', () => {
  targetTest('the three examples load end to end', async ({ db }) => {
    const { loader } = await db.open();
    const eu = await loader.load([example('eu-erp.csv')], { profile: loadProfileFile(example('eu-erp.yaml')) });
    expect(eu.exitCode).toBe(0);
    expect(eu.files[0]).toMatchObject({ profile: { name: 'eu-erp' }, discarded: 1, counts: { read: 3, rejected: 0 } });
    const legacy = await loader.load([example('headerless.csv')], { profile: loadProfileFile(example('headerless.yaml')) });
    expect(legacy.exitCode).toBe(0);
    const mainframe = await loader.load([example('mainframe-sjis.dat')], { profile: loadProfileFile(example('mainframe-sjis.yaml')) });
    // the ▲ line is read as a negative amount, which the business rules refuse
    expect(mainframe.exitCode).toBe(2);
    expect(mainframe.files[0]).toMatchObject({ discarded: 2, counts: { read: 3, rejected: 0 }, tally: { DONE: 2, ERROR: 1 } });
    expect(await db.sql<OrderRow>(ORDERS)).toEqual([
      { source_key: 'EU-50001', customer_id: 1001, order_date: '2026-12-01', amount: '1234.50', currency: 'EUR' },
      { source_key: 'EU-50002', customer_id: 1002, order_date: '2026-12-02', amount: '99.00', currency: 'EUR' },
      { source_key: 'EU-50004', customer_id: 1004, order_date: '2026-12-04', amount: '2000000.00', currency: 'CHF' },
      { source_key: 'LG-A-1', customer_id: 501, order_date: '2026-12-01', amount: '1200.00', currency: 'JPY' },
      { source_key: 'LG-A-2', customer_id: 502, order_date: '2026-12-02', amount: '3400.50', currency: 'JPY' },
      { source_key: 'LG-A-3', customer_id: 503, order_date: '2026-12-03', amount: '780.00', currency: 'JPY' },
      { source_key: 'MF-0000000101', customer_id: 1001, order_date: '2026-12-01', amount: '1250.00', currency: 'JPY' },
      { source_key: 'MF-0000000103', customer_id: 555, order_date: '2026-12-02', amount: '98000.00', currency: 'JPY' },
    ]);
    const [refused] = await loader.errors({ loadIds: [mainframe.files[0]!.loadId] });
    expect(refused).toMatchObject({ sourceKey: 'MF-0000000102', errorCode: 'INVALID_AMOUNT', amount: '-300.00' });
  });

  targetTest('a file loaded through a profile: export its errors, fix one cell, load back without a profile: DONE', async ({ db }) => {
    const { loader } = await db.open();
    const profile = loadProfileFile(example('eu-erp.yaml'));
    const file = writeTestFile(
      Buffer.from(
        'Export\r\nAuftragsnr;Kunde;Datum;Betrag;W\xe4hrung;Status;Bemerkung\r\n' +
          '1;7;31.02.2026;5,00;EUR;offen;\r\n' + // no such date
          '2;8;01.12.2026;1.23,4;EUR;offen;\r\n' + // a group separator in the wrong place
          '3;9;01.12.2026;7,00;EUR;offen;\r\n',
        'latin1',
      ),
    );
    const first = await loader.load([file], { profile });
    expect(first.exitCode).toBe(2);
    const rows = await loader.errors({ loadIds: [first.files[0]!.loadId] });
    expect(rows.map((r) => [r.errorCode, r.lineNo, r.errorMessage])).toEqual([
      ['PARSE_ORDER_DATE', 3, 'order_date: "31.02.2026" matches none of DD.MM.YYYY, YYYY/MM/DD (column "Datum")'],
      ['PARSE_AMOUNT', 4, 'amount: "1.23,4" is not a number with decimal ",", group "." (column "Betrag")'],
    ]);
    // the canonical five columns: the fields the profile read, the wrong one as found
    const exported = parse<Record<string, string>>(errorsToCsv(rows), { columns: true });
    expect(exported.map((r) => [r.source_key, r.customer_id, r.order_date, r.amount, r.currency])).toEqual([
      ['EU-1', '7', '31.02.2026', '5', 'EUR'],
      ['EU-2', '8', '2026-12-01', '1.23,4', 'EUR'],
    ]);
    exported[0]!.order_date = '2026-02-28';
    exported[1]!.amount = '1234';
    const back = await loader.load([writeTestFile(stringify(exported, { header: true, columns: Object.keys(exported[0]!) }))]);
    expect(back.exitCode).toBe(0);
    expect((await db.sql<OrderRow>(ORDERS)).map((o) => [o.source_key, o.order_date, o.amount])).toEqual([
      ['EU-1', '2026-02-28', '5.00'],
      ['EU-2', '2026-12-01', '1234.00'],
      ['EU-3', '2026-12-01', '7.00'],
    ]);
  });

  targetTest('the profile is part of a file’s identity: the same profile skips the file, a changed one reads it again', async ({ db }) => {
    const { loader } = await db.open();
    const text = readFileSync(example('headerless.yaml'), 'utf8');
    const profile = parseProfileText(text, 'headerless.yaml', 'headerless');
    const file = example('headerless.csv');
    const first = await loader.load([file], { profile });
    expect(first.files[0]!.skipped).toBeNull();
    const again = await loader.load([file], { profile: parseProfileText(`# a comment changes nothing\n${text}`, 'h.yaml', 'h') });
    expect(again.files[0]!.skipped).toMatch(/already staged by load/);
    const changed = parseProfileText(text.replace("const: 'JPY'", "const: 'USD'"), 'headerless.yaml', 'headerless');
    expect(changed.sha256).not.toBe(profile.sha256);
    const reread = await loader.load([file], { profile: changed });
    expect(reread.files[0]!.skipped).toBeNull();
    expect(reread.files[0]!.counts.updated).toBe(3);
    expect((await db.sql<OrderRow>(ORDERS)).map((o) => o.currency)).toEqual(['USD', 'USD', 'USD']);
    // the run records the profile (name, hash) in its 'invoked' event
    const [invoked] = await db.sql<{ detail: string }>(
      `SELECT detail FROM load_run_event WHERE run_id = ${reread.files[0]!.runId} AND event = 'invoked'`,
    );
    expect(JSON.parse(invoked!.detail)).toMatchObject({ profile: { name: 'legacy-jp', sha256: changed.sha256 } });
  });

  targetTest('a UTF-16 file (by its BOM) interrupted mid-file is read as UTF-16 again by the next run: every row loads', async ({ db }) => {
    const { loader } = await db.open();
    const lines = Array.from({ length: 40 }, (_, i) => `U-${i},${i + 1},2026-12-01,${i + 10},JPY`);
    const text = `source_key,customer_id,order_date,amount,currency\r\n${lines.join('\r\n')}\r\n`;
    const file = writeTestFile(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    const controller = new AbortController();
    const first = await loader.stage([file], { batchSize: 10, signal: controller.signal, onStageProgress: () => controller.abort() });
    expect(first.aborted).toContain('interrupted while staging');
    const second = await loader.load([file], { batchSize: 10 });
    expect(second.files[0]!.counts).toMatchObject({ rejected: 0 });
    expect(second.exitCode).toBe(0);
    expect(await db.sql('SELECT count(*)::int AS n FROM orders')).toEqual([{ n: 40 }]);
    // the encoding it was read with is recorded in its identity
    const [invoked] = await db.sql<{ detail: string }>(
      `SELECT detail FROM load_run_event WHERE run_id = ${second.files[0]!.runId} AND event = 'invoked'`,
    );
    expect(JSON.parse(invoked!.detail)).toMatchObject({ encoding: 'utf-16le' });
  });

  targetTest('the built-in format written as a profile reads the seed files as the built-in reader does', async ({ db }) => {
    const { loader } = await db.open();
    const seed = fileURLToPath(new URL('../../fixtures/orders-sample.csv', import.meta.url));
    const plain = await OrderLoaderDry(loader, seed, undefined);
    const profiled = await OrderLoaderDry(loader, seed, BUILTIN_PROFILE);
    expect(profiled).toEqual(plain);
  });
});

async function OrderLoaderDry(
  loader: { dryRun: (f: string[], o: { profile?: typeof BUILTIN_PROFILE }) => Promise<unknown[]> },
  file: string,
  profile: typeof BUILTIN_PROFILE | undefined,
): Promise<unknown> {
  const [result] = (await loader.dryRun([file], profile === undefined ? {} : { profile })) as Array<Record<string, unknown>>;
  return { counts: result?.counts, samples: result?.samples };
}
