import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { expect } from 'vitest';
import { errorsToCsv } from '../../src/cli/errors-csv.js';
import type { Engine } from '../../src/engine/types.js';
import { parseCorrections } from '../../src/pipeline/corrections.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, orderFile, writeTestFile } from '../support/files.js';
import { dbCode, neutralCode } from '../support/engine-expect.js';

const operator = 'test-operator';

/**
 * One line per kind of rejection, with the one cell that is wrong and its fix. The other cells of
 * each line are right: after the export, fixing that one cell must be enough.
 */
const CASES: Array<{ code: string; line: Buffer | string; column: string; fix: string; key: string }> = [
  { code: 'PARSE_FIELD_COUNT', line: 'K-FC,7,2026-01-05,100', column: 'currency', fix: 'JPY', key: 'K-FC' },
  {
    code: 'PARSE_ENCODING',
    line: Buffer.concat([Buffer.from('K-ENC,7,2026-01-05,100,'), Buffer.from([0xff]), Buffer.from('JP')]),
    column: 'currency',
    fix: 'JPY',
    key: 'K-ENC',
  },
  { code: 'PARSE_NUL_BYTE', line: 'K-NUL,7\u0000,2026-01-05,100,JPY', column: 'customer_id', fix: '7', key: 'K-NUL' },
  { code: 'PARSE_SOURCE_KEY', line: ',7,2026-01-05,100,JPY', column: 'source_key', fix: 'K-SK', key: 'K-SK' },
  { code: 'PARSE_CUSTOMER_ID', line: 'K-CUST,x7,2026-01-05,100,JPY', column: 'customer_id', fix: '7', key: 'K-CUST' },
  { code: 'PARSE_ORDER_DATE', line: 'K-DATE,7,2026-02-30,100,JPY', column: 'order_date', fix: '2026-02-28', key: 'K-DATE' },
  { code: 'PARSE_AMOUNT', line: 'K-AMT,7,2026-01-05,1e5,JPY', column: 'amount', fix: '100000', key: 'K-AMT' },
  { code: 'PARSE_CURRENCY', line: 'K-CUR,7,2026-01-05,100,JPYY', column: 'currency', fix: 'JPY', key: 'K-CUR' },
  // a quote inside an unquoted field is data: 1"00 is an amount that is not a number
  { code: 'PARSE_AMOUNT', line: 'K-Q,7,2026-01-05,1"00,JPY', column: 'amount', fix: '100', key: 'K-Q' },
  { code: 'INVALID_CUSTOMER_ID', line: 'K-ICUST,0,2026-01-05,100,JPY', column: 'customer_id', fix: '7', key: 'K-ICUST' },
  { code: 'INVALID_ORDER_DATE', line: 'K-IDATE,7,,100,JPY', column: 'order_date', fix: '2026-01-05', key: 'K-IDATE' },
  { code: 'INVALID_AMOUNT', line: 'K-IAMT,7,2026-01-05,-5,JPY', column: 'amount', fix: '100', key: 'K-IAMT' },
  { code: 'INVALID_CURRENCY', line: "'=K-APOS,7,2026-01-05,100,jpy", column: 'currency', fix: 'JPY', key: "'=K-APOS" },
  // numeric(12,2) in orders: the database itself refuses the row (22003 on PostgreSQL, ORA-01438 on Oracle)
  { code: dbCode('overflow'), line: 'K-DB,7,2026-01-05,999999999999.99,JPY', column: 'amount', fix: '100', key: 'K-DB' },
];

function fileOf(lines: Array<Buffer | string>): string {
  return writeTestFile(Buffer.concat([Buffer.from(`${HEADER}\n`), ...lines.flatMap((l) => [Buffer.from(l), Buffer.from('\n')])]));
}

type Exported = Record<string, string>;

function readCsv(csv: string): Exported[] {
  return parse<Exported>(csv, { columns: true });
}

forEachTarget('errors export on $kind', () => {
  targetTest(
    'lists every rejected line of a load; export → fix the one wrong cell → load back → DONE, for every kind of rejection',
    async ({ db }) => {
      const { loader } = await db.open();
      const first = await loader.load([fileOf(['OK-1,1,2026-01-05,10,JPY', ...CASES.map((c) => c.line)])]);
      expect(first.exitCode).toBe(2);
      const loadId = first.files[0]!.loadId;

      const rows = await loader.errors({ loadIds: [loadId] });
      expect(rows.map((r) => neutralCode(r.errorCode)).sort()).toEqual(CASES.map((c) => c.code).sort());
      for (const [i, c] of CASES.entries()) {
        // by line number (two cases share a code); its raw text as read (a NUL shown as U+2400, a bad byte as U+FFFD)
        const row = rows.find((r) => r.lineNo === i + 3)!;
        expect(neutralCode(row.errorCode), c.key).toBe(c.code);
        if (c.code.startsWith('PARSE') || c.code.startsWith('CSV')) {
          expect(row.rawRecord, c.code).toBe(
            Buffer.from(c.line)
              .toString('utf8')
              .replace(/\u0000/g, '\u2400'),
          );
        }
      }

      const csv = errorsToCsv(rows);
      const exported = readCsv(csv);
      const columns = Object.keys(exported[0]!);
      for (const [i, c] of CASES.entries()) {
        const record = exported.find((r) => r.line_no === String(i + 3))!;
        // every cell but the wrong one holds the line's own value
        const original = parse(
          Buffer.from(c.line)
            .toString('utf8')
            .replace(/\u0000/g, '\u2400')
            .replace(/1"00/, '100'),
          { relax_column_count: true },
        )[0] as string[];
        const names = HEADER.split(',');
        for (const [j, name] of names.entries()) {
          if (name === c.column || c.code === dbCode('overflow') || c.code.startsWith('INVALID')) continue;
          expect(record[name]?.replace(/^'/, ''), `${c.code} ${name}`).toBe(original[j] ?? '');
        }
        record[c.column] = c.fix;
      }
      const fixed = writeTestFile(stringify(exported, { header: true, columns }));
      const back = await loader.load([fixed]);
      expect(back.files[0]!.counts.rejected).toBe(0);
      expect(back.exitCode).toBe(0);
      const orders = await db.sql<{ source_key: string; customer_id: number; order_date: string; amount: string; currency: string }>(
        "SELECT source_key, customer_id, to_char(order_date, 'YYYY-MM-DD') AS order_date, amount::text AS amount, currency FROM orders ORDER BY source_key",
      );
      expect(orders.map((o) => o.source_key).sort()).toEqual(['OK-1', ...CASES.map((c) => c.key)].sort());
      expect(orders.find((o) => o.source_key === 'K-AMT')).toMatchObject({
        customer_id: 7,
        order_date: '2026-01-05',
        amount: '100000.00',
        currency: 'JPY',
      });
      expect(orders.find((o) => o.source_key === 'K-FC')).toMatchObject({
        customer_id: 7,
        order_date: '2026-01-05',
        amount: '100.00',
        currency: 'JPY',
      });
      expect(await db.sql("SELECT count(*) AS n FROM order_stage WHERE process_status <> 'DONE'")).toEqual([{ n: 0 }]);
      expect(await loader.errors({ loadIds: [back.files[0]!.loadId] })).toEqual([]);
    },
    240_000,
  );

  targetTest('CSV export of a line rejected while parsing holds its own values, not blanks', async ({ db }) => {
    const { loader } = await db.open();
    await loader.load([fileOf(['P-EXP,7,2026-01-05,1e5,JPY'])]);
    const lines = errorsToCsv(await loader.errors())
      .trim()
      .split('\n');
    expect(lines[1]).toMatch(/^P-EXP,7,2026-01-05,1e5,JPY,PARSE_AMOUNT,/);
  });

  targetTest('a file delimited by ";" with its columns in another order: a rejected line is split by its own header', async ({ db }) => {
    const { loader } = await db.open();
    const file = writeTestFile('currency;amount;source_key;order_date;customer_id\nJPY;1e5;P-SEMI;2026-01-05;7\nJPY;5;;2026-01-05;7\n');
    await loader.load([file], { delimiter: ';' });
    const rows = await loader.errors();
    expect(rows.map((r) => [r.errorCode, r.sourceKey, r.customerId, r.orderDate, r.amount, r.currency])).toEqual([
      ['PARSE_AMOUNT', 'P-SEMI', '7', '2026-01-05', '1e5', 'JPY'],
      ['PARSE_SOURCE_KEY', null, '7', '2026-01-05', '5', 'JPY'],
    ]);
  });

  targetTest(
    "retry --set on a line rejected while parsing starts from the line's values; a value that still cannot be read refuses",
    async ({ db }) => {
      const { loader } = await db.open();
      await loader.load([fileOf(['P-EXP,7,2026-01-05,1e5,JPY', 'P-TWO,abc,2026-01-05,1e5,JPY'])]);
      const { retry, process } = await loader.retry({
        selector: { sourceKeys: ['P-EXP'] },
        all: false,
        corrections: parseCorrections(['amount=100000']),
        reason: 'supplier resent',
        operator,
        dryRun: false,
      });
      expect(retry.changes[0]?.values).toEqual({ customerId: '7', orderDate: '2026-01-05', amount: '100000', currency: 'JPY' });
      expect(process).toMatchObject({ exitCode: 0, process: { done: 1 } });

      const request = { selector: { sourceKeys: ['P-TWO'] }, all: false, reason: 'x', operator, dryRun: false };
      await expect(loader.retry({ ...request, corrections: parseCorrections(['amount=100000']) })).rejects.toThrow(
        /P-TWO.*customer_id is not an integer: "abc"/,
      );
      expect(await db.sql("SELECT process_status FROM order_stage WHERE source_key = 'P-TWO'")).toEqual([{ process_status: 'ERROR' }]);
      const both = await loader.retry({ ...request, corrections: parseCorrections(['amount=100000', 'customer_id=8']) });
      expect(both.process).toMatchObject({ exitCode: 0, process: { done: 1 } });
      expect(await db.sql("SELECT customer_id, amount::text AS amount FROM orders WHERE source_key = 'P-TWO'")).toEqual([
        { customer_id: 8, amount: '100000.00' },
      ]);
    },
  );

  targetTest('keys that differ only by a leading apostrophe stay distinct in a file that is not our export', async ({ db }) => {
    const { loader } = await db.open();
    const report = await loader.load([
      orderFile([
        ["'-1", '1', '2026-01-01', '1', 'JPY'],
        ['-1', '1', '2026-01-01', '2', 'JPY'],
        ["'=already", '1', '2026-01-01', '3', 'JPY'],
        ['=already', '1', '2026-01-01', '4', 'JPY'],
      ]),
    ]);
    expect(report.exitCode).toBe(0);
    expect(await db.sql('SELECT source_key, amount::text AS amount FROM orders ORDER BY amount')).toEqual([
      { source_key: "'-1", amount: '1.00' },
      { source_key: '-1', amount: '2.00' },
      { source_key: "'=already", amount: '3.00' },
      { source_key: '=already', amount: '4.00' },
    ]);
  });

  targetTest('asks the database page by page (keyset), never for all the rows at once', async ({ db }) => {
    const asked: Array<{ what: string; limit: number; after: number }> = [];
    const { loader } = await db.openWith(
      (engine) =>
        new Proxy(engine, {
          get(target, name, receiver) {
            if (name === 'listErrorRows') {
              return (f: Parameters<Engine['listErrorRows']>[0]) => {
                asked.push({ what: 'stage', limit: f.limit, after: f.afterStageId ?? 0 });
                return target.listErrorRows(f);
              };
            }
            if (name === 'listRejectedLines') {
              return (f: Parameters<Engine['listRejectedLines']>[0]) => {
                asked.push({ what: 'line', limit: f.limit, after: f.afterErrorId ?? 0 });
                return target.listRejectedLines(f);
              };
            }
            const value = Reflect.get(target, name, receiver) as unknown;
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          },
        }),
    );
    const lines = [
      ...Array.from({ length: 5 }, (_, i) => `E-${i},1,2026-01-01,,JPY`),
      ...Array.from({ length: 3 }, (_, i) => `F-${i},1,2026-01-01`),
    ];
    await loader.load([fileOf(lines)]);
    const seen: string[] = [];
    for await (const row of loader.errorRows({}, 2)) seen.push(row.sourceKey ?? '');
    expect(seen).toEqual(['E-0', 'E-1', 'E-2', 'E-3', 'E-4', 'F-0', 'F-1', 'F-2']); // stage rows, then the other lines in line order
    expect(asked.every((a) => a.limit === 2)).toBe(true);
    const stagePages = asked.filter((a) => a.what === 'stage');
    const linePages = asked.filter((a) => a.what === 'line');
    expect(stagePages).toHaveLength(3);
    expect(linePages).toHaveLength(2);
    // each page starts after the last key of the page before
    expect(stagePages[0]!.after).toBe(0);
    expect(stagePages[1]!.after).toBeGreaterThan(stagePages[0]!.after);
    expect(stagePages[2]!.after).toBeGreaterThan(stagePages[1]!.after);
    expect(linePages[1]!.after).toBeGreaterThan(linePages[0]!.after);
    // --limit counts both kinds
    expect((await loader.errors({ limit: 6 })).map((r) => r.sourceKey)).toEqual(['E-0', 'E-1', 'E-2', 'E-3', 'E-4', 'F-0']);
  });
});
