/**
 * Control totals (a profile's `control:`): the vocabulary, the readers passing a trailer or header
 * record over as no data row, and the check itself on what the reader gives (the edges of the
 * trailer: not last, twice, a count that is not a number, a sum with more decimals, a gzip cut
 * before it, a file with no data record).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  ControlTally,
  controlFileName,
  controlSummary,
  isControlFileName,
  type ControlOutcome,
} from '../../src/input/control/control-check.js';
import { openOrderFile } from '../../src/input/order-file.js';
import { loadProfileFile, parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';
import { writeTestFile } from '../support/files.js';

const BANK = `version: 1
format: csv
delimiter: '|'
header: false
when: { column: 1, equals: 'D' }
columns:
  source_key: { column: 2 }
  order_date: { column: 3, date: 'YYYYMMDD' }
  customer_id: { column: 4 }
  amount: { column: 5 }
  currency: { const: 'JPY' }
`;
const TRAILER = `control:
  trailer: { column: 1, equals: 'T' }
  count: { column: 2 }
  sum: { column: 3 }
`;
const bank = (control = TRAILER): LoadProfile => parseProfileText(BANK + control, 'test', 'bank');

const D = ['D|K-1|20261201|501|1200.00', 'D|K-2|20261201|502|3400.50', 'D|K-3|20261202|503|780.00'];

/** The check of a file's content as the pre-read does it: every item told, then finished. */
async function check(content: string | Buffer, profile: LoadProfile = bank(), name?: string): Promise<ControlOutcome> {
  const path = writeTestFile(content, name);
  const file = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile });
  const control = profile.spec.control;
  if (control === undefined) throw new Error('no control');
  const tally = new ControlTally({ ...profile.spec, control });
  try {
    for await (const item of file.items) tally.add(item);
    return await tally.finish(file, file.size);
  } finally {
    file.close();
  }
}

describe('the control: vocabulary', () => {
  it('takes a trailer, a header or a control file, with what it states and what a mismatch does', () => {
    expect(bank().spec.control).toMatchObject({ trailer: { column: 1, equals: 'T' }, count_discarded: false, on_mismatch: 'hold' });
    const file = bank('control: { file: "{stem}.ctl", count: { column: 1 }, sum: { column: 2 }, on_mismatch: warn }\n');
    expect(file.spec.control).toMatchObject({ file: '{stem}.ctl', on_mismatch: 'warn' });
  });

  it('refuses what cannot be checked', () => {
    const refused = (control: string) => () => bank(control);
    expect(refused('control: { count: { column: 2 } }\n')).toThrow(/takes one of trailer, header and file/);
    expect(refused('control: { trailer: { column: 1, equals: T } }\n')).toThrow(/states count, sum, bytes or sha256/);
    expect(refused("control: { trailer: { column: 1, equals: T }, file: '{name}.ctl', count: { column: 2 } }\n")).toThrow(
      /one of trailer, header and file/,
    );
    expect(refused("control: { trailer: { column: 'kind', equals: T }, count: { column: 2 } }\n")).toThrow(/1-based field number/);
    expect(refused("control: { file: 'orders.ctl', count: { column: 1 } }\n")).toThrow(/\{name\} or \{stem\}/);
    expect(refused('control: { trailer: { column: 1, equals: T }, count: { at: [2, 6] } }\n')).toThrow(/at is for format: fixed/);
    expect(refused("control: { trailer: { column: 1, equals: T }, count: { column: 'n' } }\n")).toThrow(/count.column: reads its 1-based/);
    const jsonl = (control: string) => () =>
      parseProfileText(
        `version: 1\nformat: jsonl\ncolumns:\n  source_key: { column: id }\n  customer_id: { column: c }\n  order_date: { column: d }\n  amount: { column: a }\n  currency: { const: JPY }\n${control}`,
        'j',
        'j',
      );
    expect(jsonl("control: { trailer: { column: 'type', equals: t }, count: { column: 'n' } }\n")().spec.control?.count).toEqual({
      column: 'n',
    });
    expect(jsonl("control: { trailer: { column: 1, equals: t }, count: { column: 'n' } }\n")).toThrow(
      /read by a path into the record's object/,
    );
    expect(jsonl("control: { header: { column: 'type', equals: h }, sum: { column: 2 } }\n")).toThrow(/sum.column: reads a path/);
    expect(jsonl("control: { trailer: { column: 'type', equals: t }, count: { column: 'a..b' } }\n")).toThrow(/control.count.column/);
    // a workbook's row by column as its columns: a header name, a letter or a number; a header row (above the names) by letter or number
    const xlsx =
      (control: string, header = '') =>
      () =>
        parseProfileText(
          `version: 1\nformat: xlsx\n${header}columns:\n  source_key: { column: A }\n  customer_id: { column: B }\n  order_date: { column: C }\n  amount: { column: D }\n  currency: { const: JPY }\n${control}`,
          'x',
          'x',
        );
    expect(
      xlsx('control: { trailer: { column: A, equals: Total }, count: { column: 2 }, sum: { column: Amount } }\n')().spec.control,
    ).toMatchObject({
      trailer: { column: 'A' },
      count: { column: 2 },
      sum: { column: 'Amount' },
    });
    expect(xlsx('control: { header: { column: Kind, equals: H }, count: { column: B } }\n')).toThrow(
      /control.header.column: a header row comes before the column names/,
    );
    expect(xlsx('control: { trailer: { column: A, equals: T }, sum: { column: Total } }\n', 'header: false\n')).toThrow(
      /control.sum.column: header: false: a column is its letter/,
    );
    expect(xlsx("control: { file: '{name}.ctl', count: { column: B } }\n")).toThrow(/count.column: reads its 1-based field number/);
  });

  it('names a control file from its data file, and knows one by its name', () => {
    expect(controlFileName('/in/orders.csv', '{name}.ctl')).toBe('/in/orders.csv.ctl');
    expect(controlFileName('/in/orders.csv', '{stem}.end')).toBe('/in/orders.end');
    expect(isControlFileName('orders.end', '{stem}.end')).toBe(true);
    expect(isControlFileName('orders.csv', '{stem}.end')).toBe(false);
  });
});

describe('the trailer is no data row', () => {
  it('the CSV reader passes it over and keeps it', async () => {
    const path = writeTestFile(['H|20261207|ACME', ...D, 'T|3|5380.50', ''].join('\n'));
    const file = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile: bank() });
    const keys: string[] = [];
    for await (const item of file.items) if (item.kind === 'record') keys.push(item.fields.source_key);
    expect(keys).toEqual(['K-1', 'K-2', 'K-3']);
    expect(file.discarded()).toBe(1);
    expect(file.controlRecords?.()).toEqual([{ lineNo: 5, fields: ['T', '3', '5380.50'], text: 'T|3|5380.50' }]);
    file.close();
  });

  it('the fixed-width reader too', async () => {
    const profile = parseProfileText(
      `version: 1
format: fixed
columns:
  source_key: { at: [1, 4] }
  order_date: { at: [5, 8], date: 'YYYYMMDD' }
  customer_id: { at: [13, 3] }
  amount: { at: [16, 8] }
  currency: { const: 'JPY' }
control:
  trailer: { at: [1, 1], equals: 'T' }
  count: { at: [2, 6] }
  sum: { at: [8, 12] }
`,
      'fixed',
      'fixed',
    );
    const outcome = await check(['K0012026120150100001200', 'K0022026120150200003400', 'T000002000000004600', ''].join('\n'), profile);
    expect(outcome).toMatchObject({ status: 'ok', claimed: { count: '000002', sum: '000000004600' }, read: { count: 2, sum: '4600.00' } });
  });
});

describe('the check', () => {
  it('agrees with a whole file, and says both figures when it does not', async () => {
    expect(await check(['H|20261207|ACME', ...D, 'T|3|5380.50', ''].join('\n'))).toMatchObject({
      status: 'ok',
      where: 'trailer (line 5)',
      claimed: { count: '3', sum: '5380.50' },
      read: { count: 3, sum: '5380.50' },
    });
    const short = await check(['H|20261207|ACME', ...D.slice(0, 2), 'T|3|5380.50', ''].join('\n'));
    expect(short).toMatchObject({ status: 'mismatch', claimed: { count: '3', sum: '5380.50' }, read: { count: 2, sum: '4600.50' } });
    expect(short.problems).toEqual(['it states 3 records, 2 were read', 'it states a sum of 5380.50, the amounts read sum to 4600.50']);
  });

  it('counts a rejected line: the partner sent it', async () => {
    const outcome = await check([...D, 'D|K-4|2026|x', 'T|4|5380.50', ''].join('\n'));
    expect(outcome).toMatchObject({ status: 'ok', read: { count: 4, sum: '5380.50', amountsUnread: 1 } });
  });

  it('a trailer followed by blank lines is the last record; one followed by data is not', async () => {
    expect((await check([...D, 'T|3|5380.50', '', '', '  ', ''].join('\n'))).status).toBe('ok');
    const notLast = await check([...D.slice(0, 2), 'T|3|5380.50', D[2], ''].join('\n'));
    expect(notLast).toMatchObject({
      status: 'refused',
      problems: [expect.stringMatching(/not the last record: data follows it \(line 4\)/)],
    });
  });

  it('two trailers are refused', async () => {
    const two = await check([...D, 'T|3|5380.50', 'T|3|5380.50', ''].join('\n'));
    expect(two).toMatchObject({ status: 'refused', problems: [expect.stringMatching(/2 records match the trailer rule .*lines 4, 5/)] });
  });

  it('a count that is not a number is refused, with what was read', async () => {
    const bad = await check([...D, 'T|three|5380.50', ''].join('\n'));
    expect(bad).toMatchObject({ status: 'refused', claimed: { count: 'three' }, read: { count: 3 } });
    expect(bad.problems[0]).toMatch(/count "three" is not a number/);
  });

  it('a sum with more decimals than the amount column: equal when the extra digits are zeros, else it differs', async () => {
    expect((await check([...D, 'T|3|5380.500', ''].join('\n'))).status).toBe('ok');
    const off = await check([...D, 'T|3|5380.505', ''].join('\n'));
    expect(off).toMatchObject({ status: 'mismatch', claimed: { sum: '5380.505' }, read: { sum: '5380.50' } });
  });

  it('the sum is read with the amount column’s number rules', async () => {
    const profile = parseProfileText(
      BANK.replace('amount: { column: 5 }', "amount: { column: 5, decimal: ',', group: '.' }") + TRAILER,
      'eu',
      'eu',
    );
    const lines = ['D|K-1|20261201|501|1.200,00', 'D|K-2|20261201|502|3.400,50', 'T|2|4.600,50', ''];
    expect(await check(lines.join('\n'), profile)).toMatchObject({ status: 'ok', read: { sum: '4600.50' } });
  });

  it('a gzip member cut before the trailer: no trailer can be trusted', async () => {
    const whole = gzipSync(Buffer.from([...D, 'T|3|5380.50', ''].join('\n')));
    const cut = await check(whole.subarray(0, whole.length - 12), bank(), 'cut.txt.gz');
    expect(cut.status).toBe('refused');
    expect(cut.problems[0]).toMatch(/could not be read to its end/);
  });

  it('a trailer with zero data records agrees with a count of 0', async () => {
    expect(await check(['H|20261207|ACME', 'T|0|0.00', ''].join('\n'))).toMatchObject({ status: 'ok', read: { count: 0, sum: '0.00' } });
    expect((await check(['T|1|0.00', ''].join('\n'))).status).toBe('mismatch');
  });

  it('no trailer: refused', async () => {
    expect(await check([...D, ''].join('\n'))).toMatchObject({ status: 'refused', problems: [expect.stringMatching(/no trailer record/)] });
  });

  it('a header record must come first; discarded lines count when the profile says so', async () => {
    const header = bank('control: { header: { column: 1, equals: H }, count: { column: 2 }, count_discarded: true }\n');
    // the comment-like line X is discarded by `when`, and counted
    expect(await check(['H|4', ...D, 'X|note', ''].join('\n'), header)).toMatchObject({ status: 'ok', read: { count: 4 } });
    expect((await check([D[0], 'H|3', ...D.slice(1), ''].join('\n'), header)).problems[0]).toMatch(/not the first record/);
  });

  it('a header record before the column-name line of a CSV file with a header (a bank file)', async () => {
    const profile = loadProfileFile(fileURLToPath(new URL('../../examples/profiles/bank-header.yaml', import.meta.url)));
    const rows = ['K-1,501,2026-12-01,1200.00,JPY', 'K-2,502,2026-12-01,34.50,JPY', 'K-3,503,2026-12-02,0.00,JPY'];
    const names = 'source_key,customer_id,order_date,amount,currency';
    const path = writeTestFile(['H,20261201,3,1234.50', names, ...rows, ''].join('\n'));
    const file = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile });
    const keys: string[] = [];
    for await (const item of file.items) if (item.kind === 'record') keys.push(item.fields.source_key);
    expect(keys).toEqual(['K-1', 'K-2', 'K-3']);
    expect(file.controlRecords?.()).toEqual([{ lineNo: 1, fields: ['H', '20261201', '3', '1234.50'], text: 'H,20261201,3,1234.50' }]);
    file.close();
    expect(await check(['H,20261201,3,1234.50', names, ...rows, ''].join('\n'), profile)).toMatchObject({
      status: 'ok',
      where: 'header (line 1)',
      read: { count: 3, sum: '1234.50' },
    });
    const short = await check(['H,20261201,3,1234.50', names, ...rows.slice(0, 2), ''].join('\n'), profile);
    expect(short).toMatchObject({ status: 'mismatch', claimed: { count: '3' }, read: { count: 2, sum: '1234.50' } });
    // no header record: the first line is the column names, and the file is refused
    expect(await check([names, ...rows, ''].join('\n'), profile)).toMatchObject({
      status: 'refused',
      problems: [expect.stringMatching(/no header record/)],
    });
  });

  it('a JSON Lines trailer: the last object matched by a path, its figures read by path as written', async () => {
    const profile = loadProfileFile(fileURLToPath(new URL('../../examples/profiles/shop-trailer.yaml', import.meta.url)));
    const lines = readFileSync(fileURLToPath(new URL('../../examples/profiles/SHOP_20261201.jsonl', import.meta.url)), 'utf8').split('\n');
    const path = writeTestFile(lines.join('\n'), 'f.jsonl');
    const file = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile });
    const keys: string[] = [];
    for await (const item of file.items) if (item.kind === 'record') keys.push(item.fields.source_key);
    expect(keys).toEqual(['JS-1', 'JS-2', 'JS-3']);
    expect(file.controlRecords?.()).toEqual([{ lineNo: 4, fields: null, text: lines[3] }]);
    file.close();
    expect(await check(lines.join('\n'), profile, 'ok.jsonl')).toMatchObject({
      status: 'ok',
      where: 'trailer (line 4)',
      claimed: { count: '3', sum: '1234.50' },
      read: { count: 3, sum: '1234.50' },
    });
    const short = await check([lines[0], lines[2], lines[3], ''].join('\n'), profile, 'short.jsonl');
    expect(short).toMatchObject({ status: 'mismatch', read: { count: 2, sum: '1200.00' } });
    const noFigure = await check([lines[0], '{"type":"trailer","amount_sum":1200}', ''].join('\n'), profile, 'nofig.jsonl');
    expect(noFigure).toMatchObject({ status: 'refused', problems: [expect.stringMatching(/has no count \(path "records"\)/)] });
  });

  it('a SHA-256 stated in a control file: of the file as sent (a gzip file: its compressed bytes); another is a mismatch', async () => {
    const { createHash } = await import('node:crypto');
    const { writeFileSync } = await import('node:fs');
    const profile = bank("control: { file: '{name}.sha256', sha256: { column: 1 }, delimiter: ' ' }\n");
    const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
    /** The check of a data file written with the line of its control file beside it (sha256sum's: the digest, two spaces, the name). */
    const checked = async (data: string | Buffer, line: string): Promise<ControlOutcome> => {
      const path = writeTestFile(data, 'orders.txt');
      writeFileSync(`${path}.sha256`, `${line}  orders.txt\n`);
      const file = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile });
      const tally = new ControlTally({ ...profile.spec, control: profile.spec.control! });
      try {
        for await (const item of file.items) tally.add(item);
        return await tally.finish(file, file.size);
      } finally {
        file.close();
      }
    };
    const content = [...D, ''].join('\n');
    expect(await checked(content, sha(content).toUpperCase())).toMatchObject({
      status: 'ok',
      claimed: { sha256: sha(content).toUpperCase() },
      read: { count: 3, sha256: sha(content) },
    });
    const zipped = gzipSync(content);
    expect(await checked(zipped, sha(zipped))).toMatchObject({ status: 'ok', read: { count: 3, sha256: sha(zipped) } });
    const other = await checked(zipped, sha(content));
    expect(other).toMatchObject({ status: 'mismatch', problems: [`it states SHA-256 ${sha(content)}, the file's is ${sha(zipped)}`] });
    expect(controlSummary(other)).toContain(`states sha256 ${sha(content)}; read count 3, sha256 ${sha(zipped)}`);
    const unreadable = await checked(zipped, 'not-a-digest');
    expect(unreadable).toMatchObject({ status: 'refused' });
    expect(unreadable.problems).toEqual([expect.stringMatching(/'s SHA-256 "not-a-digest" is not 64 hexadecimal digits$/)]);
  });

  it('a control file beside the data file', async () => {
    const profile = bank("control: { file: '{name}.ctl', count: { column: 1 }, sum: { column: 2 }, bytes: { column: 3 } }\n");
    const content = [...D, ''].join('\n');
    const path = writeTestFile(content, 'orders.txt');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${path}.ctl`, `3|5380.50|${Buffer.byteLength(content)}\n`);
    const file = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile });
    const tally = new ControlTally({ ...profile.spec, control: profile.spec.control! });
    for await (const item of file.items) tally.add(item);
    const outcome = await tally.finish(file, file.size);
    expect(outcome.status).toBe('ok');
    expect(outcome.where).toMatch(/control file .*orders\.txt\.ctl/);
    file.close();
    const missing = await check(content, profile, 'other.txt');
    expect(missing).toMatchObject({ status: 'refused', problems: [expect.stringMatching(/^no control file .*other\.txt\.ctl beside/)] });
  });
});
