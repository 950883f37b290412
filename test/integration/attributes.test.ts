/**
 * Nothing in the file dropped: a profile's `extra: keep` keeps the other columns of
 * a file as each row's attributes (order_stage.attributes, orders.attributes: one JSON object of
 * column name → text), part of the unchanged-row comparison of staging and of the MERGE, kept
 * by `retry`, exported by `errors` one CSV column each, and kept again when that export is
 * loaded back without a profile. The staging's COPY (new keys) and its function (known keys)
 * both carry them: the first load goes by COPY on PostgreSQL, the reloads by the function.
 */
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { expect } from 'vitest';
import { errorsToCsv } from '../../src/cli/errors-csv.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';
import type { StageBatchResult } from '../../src/engine/types.js';
import { recordingStaging } from '../support/staging-record.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { writeTestFile } from '../support/files.js';

/** 35 columns beside the five order fields, which sit among them (40 columns in all). */
const EXTRA = Array.from({ length: 35 }, (_, i) => `Extra ${String(i + 1).padStart(2, '0')}`);
const HEADER = [...EXTRA.slice(0, 3), 'Order No', 'Customer', ...EXTRA.slice(3, 20), 'Date', 'Total', ...EXTRA.slice(20), 'Cur'];

const PROFILE = parseProfileText(
  `version: 1
name: partner
columns:
  source_key: { column: "Order No" }
  customer_id: { column: "Customer" }
  order_date: { column: "Date", date: "DD.MM.YYYY" }
  amount: { column: "Total" }
  currency: { column: "Cur" }
extra: keep
`,
  'partner.yaml',
  'partner',
);

/** Values a careless encoding would break: quotes, a comma, backslashes, a line break, a tab, text that COPY would read as NULL, a formula. */
const SPECIAL: Record<string, string> = {
  'Extra 01': 'say "hi", and \\ back\\slash',
  'Extra 02': 'two\nlines',
  'Extra 03': '日本語 ✓',
  'Extra 04': '',
  'Extra 05': '\\N',
  'Extra 06': 'tab\there',
  'Extra 07': '=SUM(A1)',
};

interface Line {
  key: string;
  date?: string;
  amount?: string;
  extra?: Record<string, string>;
}

function extras(line: Line): Record<string, string> {
  return Object.fromEntries(EXTRA.map((name) => [name, line.extra?.[name] ?? `${line.key} ${name.toLowerCase()}`]));
}

function partnerFile(lines: Line[]): string {
  const rows = lines.map((line) => {
    const values: Record<string, string> = {
      ...extras(line),
      'Order No': line.key,
      Customer: '42',
      Date: line.date ?? '01.12.2026',
      Total: line.amount ?? '10.50',
      Cur: 'EUR',
    };
    return HEADER.map((h) => values[h] ?? '');
  });
  return writeTestFile(stringify([HEADER, ...rows]));
}

/** The attributes a line keeps: its 35 other columns, an empty one left out. */
function kept(line: Line): Record<string, string> {
  return Object.fromEntries(Object.entries(extras(line)).filter(([, v]) => v.trim() !== ''));
}

const FIRST: Line[] = [
  { key: 'P-1', extra: SPECIAL },
  { key: 'P-2' },
  { key: 'P-3', date: '31.02.2026', extra: { 'Extra 02': 'two\nlines', 'Extra 07': '=SUM(A1)' } }, // no such date: staged ERROR, with its attributes
  { key: 'P-4', amount: '-5' }, // refused by the business rules: ERROR after staging
];

interface AttributeRow {
  source_key: string;
  attributes: string | null;
}

forEachTarget('attributes on $kind', () => {
  targetTest('a file of 40 columns: its 5 order fields loaded, the other 35 kept with the row', async ({ db }) => {
    const staged: StageBatchResult[] = [];
    const { loader } = await db.openWith(recordingStaging(staged));
    // on PostgreSQL the new keys go by COPY (its text format), the reloads by the function
    const by = () => (db.kind === 'oracle' ? undefined : staged.at(-1)?.by);
    const attributesOf = async (table: 'orders' | 'order_stage') =>
      Object.fromEntries(
        (await db.sql<AttributeRow>(`SELECT source_key, attributes::text AS attributes FROM ${table} ORDER BY source_key`)).map((r) => [
          r.source_key,
          r.attributes === null ? null : (JSON.parse(r.attributes) as Record<string, string>),
        ]),
      );

    const file = partnerFile(FIRST);
    const first = await loader.load([file], { profile: PROFILE });
    expect(first.files[0]).toMatchObject({ counts: { read: 4, inserted: 4, rejected: 1 }, tally: { DONE: 2, ERROR: 2 } });
    expect(by()).toBe(db.kind === 'oracle' ? undefined : 'copy');
    const p1 = kept(FIRST[0]!);
    expect(Object.keys(p1)).toHaveLength(34);
    expect(await attributesOf('orders')).toEqual({ 'P-1': p1, 'P-2': kept(FIRST[1]!) });
    expect(Object.keys((await attributesOf('orders'))['P-2']!)).toHaveLength(35);
    expect(await attributesOf('order_stage')).toEqual({
      'P-1': p1,
      'P-2': kept(FIRST[1]!),
      'P-3': kept(FIRST[2]!),
      'P-4': kept(FIRST[3]!),
    });
    const updatedAt = "SELECT updated_at FROM orders WHERE source_key = 'P-1'";
    const doneAt = await db.sql(updatedAt);

    // the same lines again (the same bytes are a file already staged: --restage): nothing changes
    const again = await loader.load([file], { profile: PROFILE, restage: true });
    // (P-3 is read again: a line that failed parsing is never "unchanged")
    expect(again.files[0]!.counts).toMatchObject({ inserted: 0, updated: 1, unchanged: 3, unchangedError: 1, rejected: 1 });
    expect(by()).toBe(db.kind === 'oracle' ? undefined : 'function');

    // one attribute changed, nothing else: a change, merged into orders
    const changed = FIRST.slice(0, 2).map((l) => (l.key === 'P-2' ? { ...l, extra: { 'Extra 35': 'changed' } } : l));
    const third = await loader.load([partnerFile(changed)], { profile: PROFILE });
    expect(third.files[0]!.counts).toMatchObject({ inserted: 0, updated: 1, unchanged: 1 });
    expect(third.exitCode).toBe(0);
    const orders = await attributesOf('orders');
    expect(orders['P-2']).toEqual(kept(changed[1]!));
    expect(orders['P-2']!['Extra 35']).toBe('changed');
    expect(orders['P-1']).toEqual(p1);
    // identical attributes: the order is not written again
    expect(await db.sql(updatedAt)).toEqual(doneAt);
  });

  targetTest('errors exports one column per attribute; fixed and loaded back without a profile, the rows keep them', async ({ db }) => {
    const { loader } = await db.open();
    const first = await loader.load([partnerFile(FIRST)], { profile: PROFILE });
    const rows = await loader.errors({ loadIds: [first.files[0]!.loadId] });
    expect(rows.map((r) => [r.sourceKey, r.errorCode])).toEqual([
      ['P-3', 'PARSE_ORDER_DATE'],
      ['P-4', 'INVALID_AMOUNT'],
    ]);
    expect(rows[0]!.attributes).toEqual(kept(FIRST[2]!));
    const csv = errorsToCsv(rows);
    const header = csv.split('\n')[0]!.split(',');
    expect(header).toEqual([
      'source_key',
      'customer_id',
      'order_date',
      'amount',
      'currency',
      'error_code',
      'error_message',
      'line_no',
      'load_id',
      'raw_record',
      ...EXTRA,
    ]);
    const exported = parse<Record<string, string>>(csv, { columns: true });
    // the formula guard of the export on attribute cells too (removed again when loaded back)
    expect(exported[0]).toMatchObject({ source_key: 'P-3', order_date: '31.02.2026', 'Extra 07': "'=SUM(A1)", 'Extra 35': 'P-3 extra 35' });
    exported[0]!.order_date = '2026-02-28';
    exported[1]!.amount = '5';
    exported[1]!['Extra 07'] = '=changed in the sheet';
    const back = await loader.load([writeTestFile(stringify(exported, { header: true, columns: header }))]);
    expect(back.exitCode).toBe(0);
    expect(back.files[0]!.counts).toMatchObject({ updated: 2, rejected: 0 });
    const orders = await db.sql<AttributeRow>(
      "SELECT source_key, attributes::text AS attributes FROM orders WHERE source_key IN ('P-3', 'P-4') ORDER BY source_key",
    );
    expect(orders.map((o) => [o.source_key, JSON.parse(o.attributes ?? 'null') as unknown])).toEqual([
      ['P-3', kept(FIRST[2]!)],
      ['P-4', { ...kept(FIRST[3]!), 'Extra 07': '=changed in the sheet' }],
    ]);
  });

  targetTest('retry keeps the attributes of the rows it corrects', async ({ db }) => {
    const { loader } = await db.open();
    await loader.load([partnerFile([{ key: 'R-1', amount: '-5', extra: SPECIAL }])], { profile: PROFILE });
    const { retry } = await loader.retry({
      selector: { sourceKeys: ['R-1'] },
      all: false,
      corrections: { amount: '5.00' },
      reason: 'sign typed by mistake',
      dryRun: false,
    });
    expect(retry.count).toBe(1);
    expect(await db.sql("SELECT process_status FROM order_stage WHERE source_key = 'R-1'")).toEqual([{ process_status: 'DONE' }]);
    const [order] = await db.sql<AttributeRow>("SELECT source_key, attributes::text AS attributes FROM orders WHERE source_key = 'R-1'");
    expect(JSON.parse(order!.attributes ?? 'null')).toEqual(kept({ key: 'R-1', extra: SPECIAL }));
  });

  targetTest('the built-in format keeps no attributes: its rows hold NULL, its extra columns are ignored as before', async ({ db }) => {
    const { loader } = await db.open();
    const report = await loader.load([
      writeTestFile('source_key,customer_id,order_date,amount,currency,note\nB-1,1,2026-12-01,1.00,JPY,hello\n'),
    ]);
    expect(report.exitCode).toBe(0);
    expect(await db.sql('SELECT source_key, attributes::text AS attributes FROM orders')).toEqual([
      { source_key: 'B-1', attributes: null },
    ]);
    expect(await db.sql('SELECT source_key, attributes::text AS attributes FROM order_stage')).toEqual([
      { source_key: 'B-1', attributes: null },
    ]);
  });
});
