import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { UserError } from '../../src/errors.js';
import { openOrderFile, type FileItem } from '../../src/input/order-file.js';
import { loadProfileFile, parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';
import { compileMapping, parseMappedRecord } from '../../src/input/profile/mapping.js';
import { profileJsonSchema } from '../../src/input/profile/schema.js';
import { tempDir, writeTestFile } from '../support/files.js';

const BASE = `version: 1
format: csv
delimiter: ";"
columns:
  source_key: { column: "Order No" }
  customer_id: { column: "Customer" }
  order_date: { column: "Date", date: ["DD.MM.YYYY", "YYYY/MM/DD"] }
  amount: { column: "Total", decimal: ",", group: "." }
  currency: { column: "Cur", default: "EUR" }
`;

const profileOf = (text: string): LoadProfile => parseProfileText(text, 'p.yaml', 'p');

function refusal(text: string): string {
  try {
    profileOf(text);
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    return message;
  }
  throw new Error('the profile was accepted');
}

describe('a profile file', () => {
  test('a YAML alias bomb is refused in one line (a UserError), not an unexpected error', () => {
    const levels = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const bomb = levels
      .map(
        (name, i) =>
          `${name}: &${name} [${Array(9)
            .fill(i === 0 ? '"x"' : `*${levels[i - 1] ?? ''}`)
            .join(',')}]`,
      )
      .join('\n');
    expect(refusal(`${BASE}${bomb}\n`)).toBe('profile p.yaml: not a profile: Excessive alias count indicates a resource exhaustion attack');
  });

  test('is checked: an unknown key is refused in one line naming its key path and YAML line', () => {
    expect(refusal(`${BASE}  colour: { column: "x" }\n`)).toBe('profile p.yaml: columns.colour: unknown key (line 10)');
    expect(refusal(BASE.replace('date: [', 'dates: ['))).toBe('profile p.yaml: columns.order_date.dates: unknown key (line 7)');
  });

  test('a YAML number or date where text is meant is refused with "quote it"', () => {
    expect(refusal(BASE.replace('default: "EUR"', 'const: 007'))).toBe(
      'profile p.yaml: columns.currency.const: YAML reads 007 as a number: quote it ("007") (line 9)',
    );
    expect(refusal(BASE.replace('date: ["DD.MM.YYYY", "YYYY/MM/DD"]', 'date: 20261201'))).toMatch(
      /^profile p\.yaml: columns\.order_date\.date: YAML reads 20261201 as a number: quote it \("20261201"\) \(line 7\)/,
    );
    expect(refusal(`${BASE}when: { column: "Date", equals: 2026-12-01 }\n`)).toBe(
      'profile p.yaml: when.equals: 2026-12-01 reads as a date in YAML: quote it ("2026-12-01") (line 10)',
    );
  });

  test('impossible combinations are refused naming the key', () => {
    expect(refusal(BASE.replace('group: "."', 'group: ","'))).toMatch(
      /^profile p\.yaml: columns\.amount\.group: the group separator cannot be/,
    );
    expect(refusal(BASE.replace('format: csv', 'format: fixed'))).toMatch(
      /^profile p\.yaml: delimiter: a delimiter has no meaning for format: fixed/,
    );
    expect(refusal(BASE.replace('{ column: "Customer" }', '{ column: "Customer", date: "YYYYMMDD" }'))).toMatch(
      /columns\.customer_id\.date: date masks are for order_date/,
    );
    expect(parseProfileText(`${BASE}extra: keep\n`, 'p.yaml', 'p').spec.extra).toBe('keep');
    expect(parseProfileText(`${BASE}extra: ["Region", "Channel"]\n`, 'p.yaml', 'p').spec.extra).toEqual(['Region', 'Channel']);
    expect(refusal(`${BASE}extra: [Region]\nheader: false\n`)).toMatch(
      /^profile p\.yaml: extra: a list of extra column names needs header: true/,
    );
    expect(refusal(BASE.replace('"YYYY/MM/DD"', '"YY/MM/DD"'))).toMatch(
      /columns\.order_date\.date\[1\]: unknown letters in date mask "YY\/MM\/DD" \(use YYYY, MM, DD, M, D; HH, H, hh, h, A, mm, ss, S…, Z; G, EE, E; T\) \(line 7\)$/,
    );
    expect(refusal(BASE.replace('encoding', 'x').replace('version: 1', 'version: 1\nencoding: klingon'))).toMatch(
      /^profile p\.yaml: encoding: unknown encoding .* \(line 2\)/,
    );
    const fixed = `version: 1
format: fixed
columns:
  source_key: { at: [1, 10] }
  customer_id: { at: [8, 4] }
  order_date: { at: [12, 8], date: "YYYYMMDD" }
  amount: { at: [20, 0] }
  currency: { const: "JPY" }
`;
    expect(refusal(fixed)).toMatch(/^profile p\.yaml: columns\.amount\.at\[1\]: .* \(line 7\)/);
    expect(refusal(`${fixed.replace('[20, 0]', '[20, 5]')}extra: keep\n`)).toMatch(
      /^profile p\.yaml: extra: format: fixed has no column names: extra \(keep or a list\) is for csv/,
    );
    expect(refusal(fixed.replace('[20, 0]', '[20, 5]'))).toBe(
      'profile p.yaml: columns.customer_id.at: overlaps columns.source_key (1–10) (line 5)',
    );
  });

  test('a file that is not YAML, or binary, is refused in one line', () => {
    expect(refusal('version: 1\ncolumns: [unclosed\n')).toMatch(/^profile p\.yaml: not a YAML or JSON profile: .*\(line \d\)$/);
    expect(refusal('just a sentence')).toMatch(/^profile p\.yaml: not a profile/);
    const binary = writeTestFile(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00]), 'p.yaml');
    expect(() => loadProfileFile(binary)).toThrow(/not a YAML or JSON profile \(a binary file\)/);
  });

  test('a profile that is a device or larger than 1 MiB is refused in one line without being read whole', () => {
    // a folder stands for a device here (/dev/zero, read whole, would exhaust memory before the fix)
    const folder = tempDir();
    expect(() => loadProfileFile(folder)).toThrow(new UserError(`profile ${folder}: not a file`));
    const huge = writeTestFile(`${BASE}${'# padding\n'.repeat(110_000)}`, 'p.yaml');
    expect(() => loadProfileFile(huge)).toThrow(
      new UserError(`profile ${huge}: not a load profile (${BASE.length + 1_100_000} bytes; a profile is at most 1048576)`),
    );
  });

  test('JSON is accepted with the same schema, and the same profile hashes alike however written', () => {
    const yaml = profileOf(BASE);
    const json = profileOf(JSON.stringify(yaml.spec));
    expect(json.sha256).toBe(yaml.sha256);
    expect(profileOf(BASE.replace('default: "EUR"', 'default: "USD"')).sha256).not.toBe(yaml.sha256);
  });

  test('the published JSON Schema is zod’s toJSONSchema of the schema (npm run schema writes it)', () => {
    const published: unknown = JSON.parse(readFileSync(new URL('../../schema/profile.schema.json', import.meta.url), 'utf8'));
    expect(published).toEqual(profileJsonSchema());
  });

  test('the three examples are valid profiles', () => {
    for (const name of ['eu-erp', 'headerless', 'mainframe-sjis']) {
      expect(loadProfileFile(new URL(`../../examples/profiles/${name}.yaml`, import.meta.url).pathname).spec.version).toBe(1);
    }
  });
});

describe('the mapping onto the five fields', () => {
  // compiled within each test (not when the file is collected): StrykerJS then counts the
  // mapping's mutants per test, not as static mutants that run every test
  const map = (date: string, amount: string) =>
    compileMapping(profileOf(BASE), { order_date: 'Date', amount: 'Total' }).map(
      (c) => ({ source_key: ' K-1 ', customer_id: '7', order_date: date, amount, currency: '' })[c],
    );

  test('dates by the masks in order, strictly; amounts by the decimal and group separators', () => {
    expect(map('01.12.2026', '1.234,50')).toEqual({
      fields: { source_key: 'K-1', customer_id: '7', order_date: '2026-12-01', amount: '1234.5', currency: 'EUR' },
      problem: null,
    });
    expect(map('2026/12/01', '99').fields.order_date).toBe('2026-12-01');
  });

  test('a value that matches no mask, or a group separator in the wrong place, is a PARSE_* problem naming field and column', () => {
    expect(map('2026/13/01', '1').problem).toEqual({
      column: 'order_date',
      code: 'PARSE_ORDER_DATE',
      message: 'order_date: "2026/13/01" matches none of DD.MM.YYYY, YYYY/MM/DD (column "Date")',
    });
    expect(map('1.12.2026', '1').problem?.code).toBe('PARSE_ORDER_DATE');
    expect(map('01.12.2026', '1.23,4').problem).toEqual({
      column: 'amount',
      code: 'PARSE_AMOUNT',
      message: 'amount: "1.23,4" is not a number with decimal ",", group "." (column "Total")',
    });
    expect(map('01.12.2026', '1234.5').problem?.code).toBe('PARSE_AMOUNT');
  });

  test('masks that read one value as two different dates: ambiguous, not guessed', () => {
    const ambiguous = compileMapping(profileOf(BASE.replace('["DD.MM.YYYY", "YYYY/MM/DD"]', '["DD/MM/YYYY", "MM/DD/YYYY"]')));
    const out = ambiguous.map((c) => ({ source_key: 'K', customer_id: '1', order_date: '03/04/2026', amount: '1', currency: 'EUR' })[c]);
    expect(out.problem?.message).toMatch(
      /^order_date: "03\/04\/2026" is ambiguous: DD\/MM\/YYYY reads 2026-04-03, MM\/DD\/YYYY reads 2026-03-04/,
    );
    // one reading only (the day is past 12): no ambiguity
    expect(
      ambiguous.map((c) => ({ source_key: 'K', customer_id: '1', order_date: '13/04/2026', amount: '1', currency: 'EUR' })[c]).problem,
    ).toBeNull();
  });

  test('negatives, NFKC, null_if, prefix, const', () => {
    const p = compileMapping(
      profileOf(`version: 1
normalize: nfkc
null_if: ["", "n/a"]
columns:
  source_key: { column: "k", prefix: "EU-" }
  customer_id: { column: "c" }
  order_date: { column: "d", date: "YYYYMMDD" }
  amount: { column: "a", negative: ["-", "▲", "()"] }
  currency: { const: "JPY" }
`),
    );
    const run = (a: string, c = '１２３') =>
      p.map((col) => ({ source_key: 'Ｋ1', customer_id: c, order_date: '２０２６１２０１', amount: a, currency: 'x' })[col]);
    expect(run('▲1,5'.replace(',', '')).fields).toEqual({
      source_key: 'EU-Ｋ1',
      customer_id: '123',
      order_date: '2026-12-01',
      amount: '-15',
      currency: 'JPY',
    });
    expect(run('(12.50)').fields.amount).toBe('-12.5');
    expect(run('▲0').fields.amount).toBe('0');
    expect(run('－3').fields.amount).toBe('-3');
    expect(run('3', 'n/a').fields.customer_id).toBe('');
  });

  test('a line with a problem is a PARSE_* error of that field, staged as ERROR by its key, its other problems said too', () => {
    const outcome = parseMappedRecord(
      { source_key: 'K-1', customer_id: '', order_date: '2026/13/01', amount: '5', currency: 'EUR' },
      { column: 'order_date', code: 'PARSE_ORDER_DATE', message: 'order_date: "2026/13/01" matches none of YYYY/MM/DD (column "Date")' },
    );
    expect(outcome).toMatchObject({
      ok: false,
      sourceKey: 'K-1',
      error: {
        code: 'PARSE_ORDER_DATE',
        message:
          'PARSE_ORDER_DATE: order_date: "2026/13/01" matches none of YYYY/MM/DD (column "Date"); INVALID_CUSTOMER_ID: customer_id is missing',
      },
    });
  });
});

async function readAll(path: string, profile: LoadProfile): Promise<FileItem[]> {
  const file = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile });
  const items: FileItem[] = [];
  for await (const item of file.items) items.push(item);
  return items;
}

describe('the readers with a profile', () => {
  test('CSV: banner, comment and `when` lines discarded, not errors; a quote inside an unquoted field is data', async () => {
    const profile = profileOf(
      `${BASE.replace('format: csv', 'format: csv\nskip_lines: 1\ncomment: "#"')}when: { column: "Status", not_in: ["storniert"] }\n`,
    );
    const path = writeTestFile(
      'Export 01.12.2026\nOrder No;Customer;Date;Total;Cur;Status;Name\n1;7;01.12.2026;5,00;;ok;5"Display\n# note\n2;8;02.12.2026;6,00;USD;storniert;x\n',
    );
    const file = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile });
    const items: FileItem[] = [];
    for await (const item of file.items) items.push(item);
    expect(items.map((i) => [i.kind, i.lineNo, i.kind === 'record' ? i.fields : i.code])).toEqual([
      ['record', 3, { source_key: '1', customer_id: '7', order_date: '2026-12-01', amount: '5', currency: 'EUR' }],
    ]);
    expect(file.discarded()).toBe(2);
    expect(file.header.extraColumns).toEqual(['Name']);
  });

  test('CSV: a quoted first field that starts with the comment ("#7") is data, not a comment line', async () => {
    const profile = profileOf(BASE.replace('format: csv', 'format: csv\ncomment: "#"'));
    const path = writeTestFile('Order No;Customer;Date;Total;Cur\n# note\n"#7";7;01.12.2026;5,00;EUR\n  # indented note\n');
    const file = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile });
    const items: FileItem[] = [];
    for await (const item of file.items) items.push(item);
    expect(items.map((i) => [i.kind, i.lineNo, i.kind === 'record' ? i.fields.source_key : i.code])).toEqual([['record', 3, '#7']]);
    expect(file.discarded()).toBe(2);
  });

  test('CSV: a column the header lacks is refused before any line is read', async () => {
    const path = writeTestFile('Order No;Kunde;Date;Total;Cur\n1;7;01.12.2026;5,00;EUR\n');
    await expect(openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile: profileOf(BASE) })).rejects.toThrow(
      'profile p: columns.customer_id.column: column "Customer" is not in the header of ' +
        path +
        ' (line 1: Order No, Kunde, Date, Total, Cur)',
    );
  });

  test('CSV: a column the profile names that appears twice in the header (alike but for case or width) is refused, not the first taken', async () => {
    const path = writeTestFile('Order No;Customer;Date;Total;Cur;ＣＵＳＴＯＭＥＲ\n1;7;01.12.2026;5,00;EUR;8\n');
    await expect(openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile: profileOf(BASE) })).rejects.toThrow(
      `profile p: columns.customer_id.column: "Customer" names columns 2 and 6 of the header of ${path}: which one is meant cannot be told`,
    );
  });

  test('a UTF-8 byte order mark in a file the profile reads as another encoding refuses the file (it would be text of the first field)', async () => {
    const path = writeTestFile(Buffer.from('\uFEFFK-1,20261201,7,5\n', 'utf8'));
    for (const encoding of ['windows-1252', 'shift_jis']) {
      const profile = profileOf(
        `version: 1\nheader: false\nencoding: ${encoding}\ncolumns:\n  source_key: { column: 1 }\n  customer_id: { column: 3 }\n` +
          `  order_date: { column: 2, date: "YYYYMMDD" }\n  amount: { column: 4 }\n  currency: { const: "JPY" }\n`,
      );
      await expect(openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile })).rejects.toThrow(
        `${path}: the file starts with a UTF-8 byte order mark, but it is to be read as ${encoding}: read it as utf-8`,
      );
    }
  });

  test('an empty file read through a profile is refused naming the profile, not the built-in header it does not need', async () => {
    const path = writeTestFile('');
    await expect(openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile: profileOf(BASE) })).rejects.toThrow(
      new UserError(`${path}: the file is empty (profile p)`),
    );
  });

  test('CSV: header names match ignoring case, blanks and full-width forms', async () => {
    const path = writeTestFile('ＯＲＤＥＲ ＮＯ ; customer ;DATE;total;cur\n1;7;01.12.2026;5,00;EUR\n');
    const items = await readAll(path, profileOf(BASE));
    expect(items.map((i) => i.kind)).toEqual(['record']);
  });

  const FIXED = `version: 1
format: fixed
encoding: shift_jis
normalize: nfkc
when: { at: [1, 1], equals: "D" }
columns:
  source_key: { at: [2, 4] }
  customer_id: { at: [6, 4] }
  order_date: { at: [10, 8], date: "YYYYMMDD" }
  amount: { at: [18, 6], negative: ["▲"] }
  currency: { const: "JPY" }
`;

  test('a date mask that matches none of the first 1000 lines is said once; each line is still rejected on its own', async () => {
    const lines = Array.from({ length: 1200 }, (_, i) => `${i};7;2026-12-01;5,00;EUR`);
    const path = writeTestFile(`Order No;Customer;Date;Total;Cur\n${lines.join('\n')}\n`);
    const warnings: string[] = [];
    const file = await openOrderFile(path, {
      encoding: 'utf-8',
      delimiter: ',',
      profile: profileOf(BASE),
      onWarning: (m) => warnings.push(m),
    });
    let rejected = 0;
    for await (const item of file.items) if (item.kind === 'record' && item.problem?.code === 'PARSE_ORDER_DATE') rejected++;
    expect(rejected).toBe(1200);
    expect(warnings).toEqual([
      `${path}: profile p: columns.order_date: no value of the first 1000 line(s) fits date: DD.MM.YYYY,YYYY/MM/DD (column "Date"; such as "2026-12-01"): each line is rejected`,
    ]);
    // a mask that matches some lines: nothing said
    const mixed = writeTestFile(`Order No;Customer;Date;Total;Cur\n1;7;2026-12-01;5,00;EUR\n2;7;01.12.2026;5,00;EUR\n`);
    const quiet: string[] = [];
    const other = await openOrderFile(mixed, {
      encoding: 'utf-8',
      delimiter: ',',
      profile: profileOf(BASE),
      onWarning: (m) => quiet.push(m),
    });
    for await (const _ of other.items);
    expect(quiet).toEqual([]);
  });

  test('fixed width in bytes: a cut double-byte character and a short line are PARSE_* rejections with their text; resume offsets for every line', async () => {
    const sjis = (s: string) => Buffer.from(new TextEncoder().encode(s)); // ASCII only here
    const lines = [
      sjis('HHEADER'),
      Buffer.concat([sjis('DK001'), Buffer.from([0x82, 0x50, 0x82, 0x51]), sjis('20261201'), Buffer.from([0x81, 0xa3]), sjis('  12')]), // "１２", ▲
      Buffer.concat([sjis('DK002'), Buffer.from([0x82, 0x50, 0x82, 0x51]), sjis('2026120'), Buffer.from([0x82, 0x52]), sjis('    5')]), // date cut at its end
      sjis('DK003123420261201'), // shorter than amount's field
      sjis('TTRAILER'),
    ];
    const path = writeTestFile(Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\r\n')])));
    const items = await readAll(path, profileOf(FIXED));
    expect(items.map((i) => [i.kind, i.lineNo, i.kind === 'record' ? i.fields : i.code, i.endByte])).toEqual([
      ['record', 2, { source_key: 'K001', customer_id: '12', order_date: '2026-12-01', amount: '-12', currency: 'JPY' }, 9 + 25],
      ['reject', 3, 'PARSE_FIXED_SPLIT', 9 + 25 * 2],
      ['reject', 4, 'PARSE_FIXED_SHORT', 9 + 25 * 2 + 19],
    ]);
    const split = items[1] as FileItem & { message: string; raw: string };
    expect(split.message).toBe('columns.order_date at 10–17 cuts a multi-byte character between bytes 17 and 18');
    expect(split.raw).toBe('DK002１２2026120３    5');
  });

  test('fixed width: a comment that is not ASCII is found in a Shift_JIS line (compared as text, not as UTF-8 bytes)', async () => {
    const path = writeTestFile(
      Buffer.concat([
        Buffer.from([0x81, 0x96]), // "＊"
        Buffer.from(' note\r\nDK001', 'latin1'),
        Buffer.from([0x82, 0x50, 0x82, 0x51]), // "１２"
        Buffer.from('20261201    12\r\n', 'latin1'),
      ]),
    );
    const profile = profileOf(`${FIXED.replace('when: { at: [1, 1], equals: "D" }\n', '')}comment: "＊"\n`);
    const file = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile });
    const items: FileItem[] = [];
    for await (const item of file.items) items.push(item);
    expect(items.map((i) => [i.kind, i.lineNo, i.kind === 'record' ? i.fields.source_key : i.code])).toEqual([['record', 2, 'K001']]);
    expect(file.discarded()).toBe(1);
  });

  test('Shift_JIS bytes that are not Shift_JIS (0xA0, a lead byte without its trail) are a PARSE_ENCODING rejection, CSV and fixed, not a key with U+FFFD', async () => {
    const bad = Buffer.from([0x4b, 0xa0, 0x81, 0x7f]); // "K", then bytes Shift_JIS does not have
    const csvPath = writeTestFile(Buffer.concat([bad, Buffer.from(',20261201,5,10\nK2,20261201,5,10\n', 'latin1')]));
    const csv = profileOf(
      'version: 1\nheader: false\nencoding: shift_jis\ncolumns:\n  source_key: { column: 1 }\n  customer_id: { column: 3 }\n' +
        '  order_date: { column: 2, date: "YYYYMMDD" }\n  amount: { column: 4 }\n  currency: { const: "JPY" }\n',
    );
    const fixedPath = writeTestFile(
      Buffer.concat([Buffer.from('D'), bad, Buffer.from('123420261201    12\r\nDK002123420261201    12\r\n', 'latin1')]),
    );
    for (const [path, profile] of [
      [csvPath, csv],
      [fixedPath, profileOf(FIXED)],
    ] as const) {
      const items = await readAll(path, profile);
      expect(items.map((i) => [i.kind, i.lineNo, i.kind === 'record' ? i.fields.source_key : i.code])).toEqual([
        ['reject', 1, 'PARSE_ENCODING'],
        ['record', 2, profile === csv ? 'K2' : 'K002'],
      ]);
      expect((items[0] as FileItem & { message: string }).message).toBe(
        'the line is not valid Shift_JIS: it holds bytes that encoding does not have',
      );
    }
  });

  test('fixed width: a line over the longest record (a file without line ends) is one CSV_MAX_RECORD_SIZE rejection, not held whole; reading goes on', async () => {
    const good = (key: string) => `D${key}123420261201    12`;
    const long = (n: number) => `D${'x'.repeat(n)}`;
    const text = `${good('K001')}\r\n${long(1_500_000)}\r\n${good('K003')}\r${long(1_200_000)}`;
    const path = writeTestFile(Buffer.from(text, 'latin1'));
    const items = await readAll(path, profileOf(FIXED));
    const bytes = (s: string) => Buffer.byteLength(s, 'latin1');
    expect(items.map((i) => [i.kind, i.lineNo, i.kind === 'record' ? i.fields.source_key : i.code, i.endByte])).toEqual([
      ['record', 1, 'K001', 25],
      ['reject', 2, 'CSV_MAX_RECORD_SIZE', 25 + bytes(long(1_500_000)) + 2],
      ['record', 3, 'K003', 25 + bytes(long(1_500_000)) + 2 + 24],
      ['reject', 4, 'CSV_MAX_RECORD_SIZE', bytes(text)],
    ]);
    const rejected = items[1] as FileItem & { raw: string; message: string };
    expect(rejected.raw).toBe(`${long(3999)}…`);
    expect(rejected.message).toBe('the line is longer than the longest record read (1048576 bytes); the line was skipped');
  });
});
