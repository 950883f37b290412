/**
 * A profile checked before any order file is opened (src/input/profile/load-profile.ts and the
 * rules of src/input/profile/schema.ts): each refusal one line naming the key path and the YAML
 * line, so that the user can fix the file without reading the schema. The mapping a profile
 * makes is profile.test.ts's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { canonicalJson, loadProfileFile, parseProfileText } from '../../src/input/profile/load-profile.js';
import { dateMaskProblem, FIXED_RECORD_LIMIT } from '../../src/input/profile/schema.js';
import { tempDir, writeTestFile } from '../support/files.js';

const CSV = `version: 1
delimiter: ";"
columns:
  source_key: { column: "No" }
  customer_id: { column: "Customer" }
  order_date: { column: "Date", date: "DD.MM.YYYY" }
  amount: { column: "Total" }
  currency: { const: "EUR" }
`;

const FIXED = `version: 1
format: fixed
columns:
  source_key: { at: [1, 10] }
  customer_id: { at: [11, 5] }
  order_date: { at: [16, 8], date: "YYYYMMDD" }
  amount: { at: [24, 10] }
  currency: { const: "JPY" }
`;

function refusal(text: string): string {
  try {
    parseProfileText(text, 'p.yaml', 'p');
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return (error as Error).message;
  }
  throw new Error('the profile was accepted');
}

const accepted = (text: string) => parseProfileText(text, 'p.yaml', 'p');

describe('parseProfileText: what it gives', () => {
  it('the spec with its defaults, its name (or the fallback) and the hash of its canonical JSON', () => {
    const p = accepted(CSV);
    expect(p.name).toBe('p');
    expect(p.source).toBeUndefined();
    expect(p.spec).toMatchObject({ format: 'csv', encoding: 'utf-8', skip_lines: 0, null_if: [''], normalize: 'none', extra: 'ignore' });
    expect(p.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(accepted(`${CSV}name: eu.erp_2\n`).name).toBe('eu.erp_2');
    // the same profile written otherwise: the same hash; another value: another hash
    expect(accepted(CSV.replace('{ column: "No" }', '{column: No}')).sha256).toBe(p.sha256);
    expect(accepted(`${CSV}skip_lines: 0\n`).sha256).toBe(p.sha256);
    expect(accepted(CSV.replace('"EUR"', '"USD"')).sha256).not.toBe(p.sha256);
    expect(accepted(`${CSV}name: other\n`).sha256).not.toBe(p.sha256);
  });

  it('encoding aliases are read as the encoding they stand for', () => {
    const enc = (name: string) => accepted(`${CSV}encoding: ${name}\n`).spec.encoding;
    expect(['utf8', 'sjis', 'cp932', 'MS932'.toLowerCase(), 'eucjp', 'utf16', 'latin1', 'cp1252'].map(enc)).toEqual([
      'utf-8',
      'shift_jis',
      'shift_jis',
      'shift_jis',
      'euc-jp',
      'utf-16',
      'windows-1252',
      'windows-1252',
    ]);
  });
});

describe('parseProfileText: refusals in one line, naming the key path and the YAML line', () => {
  it('not YAML, not a mapping, an alias bomb', () => {
    expect(refusal('version: 1\ncolumns: [unclosed\n')).toMatch(/^profile p\.yaml: not a YAML or JSON profile: [^\n]+ \(line 3\)$/);
    expect(refusal('version: 1\nversion: 1\n')).toMatch(
      /^profile p\.yaml: not a YAML or JSON profile: Map keys must be unique.* \(line 2\)$/,
    );
    for (const text of ['just a sentence', '- a\n- b\n', '', '# only a comment\n'])
      expect(refusal(text)).toBe('profile p.yaml: not a profile (expected keys such as version: 1 and columns:)');
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]']
      .concat(
        ['b', 'c', 'd', 'e'].map(
          (n, i) =>
            `${n}: &${n} [${Array(10)
              .fill(`*${'abcd'[i] ?? ''}`)
              .join(',')}]`,
        ),
      )
      .join('\n');
    expect(refusal(`${CSV}${bomb}\n`)).toMatch(/^profile p\.yaml: not a profile: Excessive alias count/);
  });

  it('unknown keys: the first named with its line, the others counted', () => {
    expect(refusal(`${CSV}colour: red\n`)).toBe('profile p.yaml: colour: unknown key (line 9)');
    expect(refusal(`${CSV}colour: red\nsize: 2\nshape: round\n`)).toBe('profile p.yaml: colour: unknown key (also size, shape) (line 9)');
    expect(refusal(CSV.replace('{ column: "Total" }', '{ column: "Total", scale: 2 }'))).toBe(
      'profile p.yaml: columns.amount.scale: unknown key (line 7)',
    );
  });

  it('a YAML number or boolean where text is meant: "quote it", with the text as written', () => {
    expect(refusal(CSV.replace('"EUR"', '0x10'))).toBe(
      'profile p.yaml: columns.currency.const: YAML reads 0x10 as a number: quote it ("0x10") (line 8)',
    );
    expect(refusal(CSV.replace('"EUR"', 'true'))).toBe(
      'profile p.yaml: columns.currency.const: YAML reads true as a boolean: quote it ("true") (line 8)',
    );
    expect(refusal(`${CSV}null_if: ["", 0]\n`)).toBe('profile p.yaml: null_if[1]: YAML reads 0 as a number: quote it ("0") (line 9)');
    // a union of text and other kinds: said as text
    expect(refusal(CSV.replace('date: "DD.MM.YYYY"', 'date: false'))).toBe(
      'profile p.yaml: columns.order_date.date: YAML reads false as a boolean: quote it ("false") (line 6)',
    );
    // where a number or a boolean is meant, the schema's own message
    expect(refusal(`${CSV}skip_lines: true\n`)).toMatch(
      /^profile p\.yaml: skip_lines: Invalid input: expected number, received boolean \(line 9\)$/,
    );
    expect(refusal(`${CSV}header: "yes"\n`)).toMatch(
      /^profile p\.yaml: header: Invalid input: expected boolean, received string \(line 9\)$/,
    );
    expect(refusal(`${CSV}skip_lines: 1.5\n`)).toMatch(/^profile p\.yaml: skip_lines: .* \(line 9\)$/);
  });

  it('a plain scalar that another YAML reader would make a date: "quote it", wherever it is', () => {
    expect(refusal(CSV.replace('"EUR"', '2026-12-01'))).toBe(
      'profile p.yaml: columns.currency.const: 2026-12-01 reads as a date in YAML: quote it ("2026-12-01") (line 8)',
    );
    expect(refusal(`${CSV}null_if: ["", 2026-1-5]\n`)).toBe(
      'profile p.yaml: null_if[1]: 2026-1-5 reads as a date in YAML: quote it ("2026-1-5") (line 9)',
    );
    expect(refusal(`${CSV}null_if: ["", 2026-01-05T10:00:00]\n`)).toMatch(
      /^profile p\.yaml: null_if\[1\]: 2026-01-05T10:00:00 reads as a date/,
    );
    expect(refusal(`${CSV}null_if: ["", 2026-01-05 10:00]\n`)).toMatch(/^profile p\.yaml: null_if\[1\]: 2026-01-05 10:00 reads as a date/);
    // quoted, or not a date: text
    expect(accepted(CSV.replace('"EUR"', '"2026-12-01"')).spec.columns.currency.const).toBe('2026-12-01');
    expect(accepted(`${CSV}null_if: [2026-12, 12026-01-01, x2026-01-01, 2026-01-01x]\n`).spec.null_if).toEqual([
      '2026-12',
      '12026-01-01',
      'x2026-01-01',
      '2026-01-01x',
    ]);
  });

  it('an unknown encoding names the ones known; several problems: the first, and how many more', () => {
    expect(refusal(`${CSV}encoding: klingon\n`)).toBe(
      'profile p.yaml: encoding: unknown encoding (utf-8, shift_jis, euc-jp, utf-16, windows-1252) (line 9)',
    );
    expect(refusal(`${CSV}format: xml\n`)).toMatch(
      /^profile p\.yaml: format: Invalid option: expected one of "csv"\|"fixed"\|"jsonl"\|"xlsx" \(line 9\)$/,
    );
    expect(refusal(CSV.replace('version: 1', 'version: 2'))).toMatch(/^profile p\.yaml: version: .* \(line 1\)$/);
    expect(refusal(`${CSV}skip_lines: -1\nnormalize: nfc\n`)).toMatch(/^profile p\.yaml: skip_lines: .* \(line 9\) \(and 1 more\)$/);
    expect(refusal('version: 1\n')).toMatch(/^profile p\.yaml: columns: Invalid input: expected object, received undefined$/);
  });
});

describe('the schema: what a profile may say, and what together', () => {
  const cases: Array<[string, string, string]> = [
    ['a name of other characters', `${CSV}name: "eu erp"\n`, 'name: a name of letters, digits, ".", "_" or "-" (at most 64) (line 9)'],
    ['a name too long', `${CSV}name: "${'n'.repeat(65)}"\n`, 'name: a name of letters, digits, ".", "_" or "-" (at most 64) (line 9)'],
    [
      'a match with a folder',
      `${CSV}match: "in/*.csv"\n`,
      'match: a file-name pattern (* and ?) without a folder: it is matched against the name (line 9)',
    ],
    ['an empty match', `${CSV}match: ""\n`, 'match: Too small: expected string to have >=1 characters (line 9)'],
    [
      'a delimiter of two characters',
      CSV.replace('";"', '";;"'),
      'delimiter: Too big: expected string to have exactly 1 characters (line 2)',
    ],
    ['a line break as delimiter', CSV.replace('";"', '"\\n"'), 'delimiter: not a line break (line 2)'],
    ['a carriage return as delimiter', CSV.replace('";"', '"\\r"'), 'delimiter: not a line break (line 2)'],
    [
      'a fixed delimiter',
      FIXED.replace('format: fixed', 'format: fixed\ndelimiter: ";"'),
      'delimiter: a delimiter has no meaning for format: fixed (line 3)',
    ],
    ['a fixed quote', `${FIXED}quote: "'"\n`, 'quote: a quote has no meaning for format: fixed (line 9)'],
    ['a fixed escape', `${FIXED}escape: "\\\\"\n`, 'escape: a escape has no meaning for format: fixed (line 9)'],
    ['a fixed header', `${FIXED}header: true\n`, 'header: a header has no meaning for format: fixed (line 9)'],
    ['fixed utf-16', `${FIXED}encoding: utf-16\n`, 'encoding: utf-16 is not read as format: fixed (use csv) (line 9)'],
    ['csv units', `${CSV}units: chars\n`, 'units: units is for format: fixed (line 9)'],
    ['fixed extra: keep', `${FIXED}extra: keep\n`, 'extra: format: fixed has no column names: extra (keep or a list) is for csv (line 9)'],
    ['fixed extra: a list', `${FIXED}extra: [a]\n`, 'extra: format: fixed has no column names: extra (keep or a list) is for csv (line 9)'],
    [
      'extra names without a header',
      `${CSV.replaceAll(/column: "[A-Za-z]+"/g, 'column: 1')}header: false\nextra: [a]\n`,
      'extra: a list of extra column names needs header: true (line 10)',
    ],
    ['a column with no source', CSV.replace('{ column: "Total" }', '{ trim: true }'), 'columns.amount: needs column (or const) (line 7)'],
    [
      'a fixed column with no source',
      FIXED.replace('{ at: [24, 10] }', '{ trim: true }'),
      'columns.amount: needs at: [start, length] (or const) (line 7)',
    ],
    [
      'two sources',
      CSV.replace('{ column: "Total" }', '{ column: "Total", const: "1" }'),
      'columns.amount: takes one of column, at and const (line 7)',
    ],
    [
      'a fixed column by name',
      FIXED.replace('{ at: [24, 10] }', '{ column: "Total" }'),
      'columns.amount.column: format: fixed reads columns by at: [start, length] (line 7)',
    ],
    [
      'a csv column by position',
      CSV.replace('{ column: "Total" }', '{ at: [1, 2] }'),
      'columns.amount.at: at is for format: fixed (csv reads by column) (line 7)',
    ],
    [
      'a name without a header',
      `${CSV}header: false\n`,
      'columns.source_key.column: header: false: a column is its 1-based number (line 4) (and 3 more)',
    ],
    [
      'const and default',
      CSV.replace('{ const: "EUR" }', '{ const: "EUR", default: "USD" }'),
      'columns.currency: takes const or default, not both (line 8)',
    ],
    [
      'a const key',
      CSV.replace('{ column: "No" }', '{ const: "K" }'),
      'columns.source_key: source_key is read from the file: no const or default (line 4)',
    ],
    [
      'a default key',
      CSV.replace('{ column: "No" }', '{ column: "No", default: "K" }'),
      'columns.source_key: source_key is read from the file: no const or default (line 4)',
    ],
    [
      'a date mask elsewhere',
      CSV.replace('{ column: "Total" }', '{ column: "Total", date: "YYYYMMDD" }'),
      'columns.amount.date: date masks are for order_date (line 7)',
    ],
    [
      'a bad mask',
      CSV.replace('"DD.MM.YYYY"', '"DD.MM.YY"'),
      'columns.order_date.date: unknown letters in date mask "DD.MM.YY" (use YYYY, MM, DD, M, D; HH, H, hh, h, A, mm, ss, S…, Z; G, EE, E; T) (line 6)',
    ],
    [
      'a bad mask in a list',
      CSV.replace('"DD.MM.YYYY"', '["DD.MM.YYYY", "MM/DD"]'),
      'columns.order_date.date[1]: date mask "MM/DD" needs one year (YYYY, or an era G with its year E), one month and one day (line 6)',
    ],
    [
      'decimal elsewhere',
      CSV.replace('{ column: "Customer" }', '{ column: "Customer", decimal: "," }'),
      'columns.customer_id.decimal: decimal is for amount (line 5)',
    ],
    [
      'group elsewhere',
      CSV.replace('{ column: "Customer" }', '{ column: "Customer", group: "," }'),
      'columns.customer_id.group: group is for amount (line 5)',
    ],
    [
      'negative elsewhere',
      CSV.replace('{ column: "Customer" }', '{ column: "Customer", negative: ["-"] }'),
      'columns.customer_id.negative: negative is for amount (line 5)',
    ],
    [
      'group = decimal',
      CSV.replace('{ column: "Total" }', '{ column: "Total", decimal: ".", group: "." }'),
      'columns.amount.group: the group separator cannot be the decimal separator (line 7)',
    ],
    [
      'a decimal comma in a comma file',
      CSV.replace('delimiter: ";"\n', '').replace('{ column: "Total" }', '{ column: "Total", decimal: "," }'),
      'columns.amount.decimal: a decimal comma in a comma-separated file: set delimiter (line 6)',
    ],
    [
      'a field past the longest record',
      FIXED.replace('[24, 10]', `[${FIXED_RECORD_LIMIT}, 2]`),
      `columns.amount.at: out of range: ends at ${FIXED_RECORD_LIMIT + 1}, past the longest record read (${FIXED_RECORD_LIMIT}) (line 7)`,
    ],
    [
      'a zero length',
      FIXED.replace('[24, 10]', '[24, 0]'),
      'columns.amount.at[1]: out of range: positions, lengths and column numbers count from 1 (line 7)',
    ],
    ['overlapping fields', FIXED.replace('[11, 5]', '[10, 5]'), 'columns.customer_id.at: overlaps columns.source_key (1–10) (line 5)'],
    ['overlap given out of order', FIXED.replace('[1, 10]', '[30, 2]'), 'columns.source_key.at: overlaps columns.amount (24–33) (line 4)'],
    ['when with two tests', `${CSV}when: { column: "S", equals: "x", in: ["y"] }\n`, 'when: takes one of equals, in and not_in (line 9)'],
    ['when with no test', `${CSV}when: { column: "S" }\n`, 'when: takes one of equals, in and not_in (line 9)'],
    ['a fixed when without at', `${FIXED}when: { equals: "x" }\n`, 'when: format: fixed: when needs at: [start, length] (line 9)'],
    [
      'a fixed when by column',
      `${FIXED}when: { at: [40, 1], column: "S", equals: "x" }\n`,
      'when.column: format: fixed reads by at (line 9)',
    ],
    ['a csv when without column', `${CSV}when: { equals: "x" }\n`, 'when: when needs column (line 9)'],
    ['a csv when by at', `${CSV}when: { column: "S", at: [1, 1], equals: "x" }\n`, 'when.at: at is for format: fixed (line 9)'],
    [
      'a when past the longest record',
      `${FIXED}when: { at: [${FIXED_RECORD_LIMIT}, 3], equals: "x" }\n`,
      `when.at: out of range: ends at ${FIXED_RECORD_LIMIT + 2}, past the longest record read (${FIXED_RECORD_LIMIT}) (line 9)`,
    ],
  ];

  it.each(cases)('%s', (_, text, message) => {
    expect(refusal(text)).toBe(`profile p.yaml: ${message}`);
  });

  it('what is accepted at the edges', () => {
    expect(accepted(`${CSV}name: "${'n'.repeat(64)}"\n`).name).toBe('n'.repeat(64));
    expect(accepted(`${CSV}name: "0a._-"\n`).name).toBe('0a._-');
    expect(accepted(`${CSV}match: "EU_*.csv"\n`).spec.match).toBe('EU_*.csv');
    expect(accepted(`${CSV}header: false\n`.replaceAll(/column: "[A-Za-z]+"/g, 'column: 1')).spec.header).toBe(false);
    expect(accepted(`${CSV}header: false\nextra: keep\n`.replaceAll(/column: "[A-Za-z]+"/g, 'column: 1')).spec.extra).toBe('keep');
    expect(accepted(`${CSV}extra: [Region]\n`).spec.extra).toEqual(['Region']);
    // a decimal comma is fine with a group, in a file of another delimiter, and in a fixed file
    const comma = CSV.replace('delimiter: ";"\n', '');
    expect(
      accepted(comma.replace('{ column: "Total" }', '{ column: "Total", decimal: ",", group: "." }')).spec.columns.amount.decimal,
    ).toBe(',');
    expect(accepted(CSV.replace('{ column: "Total" }', '{ column: "Total", decimal: "," }')).spec.columns.amount.decimal).toBe(',');
    expect(accepted(FIXED.replace('{ at: [24, 10] }', '{ at: [24, 10], decimal: "," }')).spec.columns.amount.decimal).toBe(',');
    // a field ending at the longest record; adjacent fields; a when within it
    expect(accepted(FIXED.replace('[24, 10]', `[${FIXED_RECORD_LIMIT}, 1]`)).spec.format).toBe('fixed');
    expect(accepted(`${FIXED}units: chars\nwhen: { at: [${FIXED_RECORD_LIMIT}, 1], in: ["x"] }\n`).spec.units).toBe('chars');
    expect(accepted(`${CSV}when: { column: "S", not_in: ["x"] }\n`).spec.when).toEqual({ column: 'S', not_in: ['x'] });
    // default beside column, const alone, a list of aliases
    expect(accepted(CSV.replace('{ const: "EUR" }', '{ column: ["Cur", "Currency"], default: "EUR" }')).spec.columns.currency).toEqual({
      column: ['Cur', 'Currency'],
      default: 'EUR',
    });
  });
});

describe('dateMaskProblem', () => {
  it('one year, one month and one day, no other letters, no digits', () => {
    for (const mask of ['YYYY-MM-DD', 'DD.MM.YYYY', 'YYYYMMDD', 'M/D/YYYY', 'D. M. YYYY']) expect(dateMaskProblem(mask)).toBeNull();
    expect(dateMaskProblem('YYYY-MM-DDx')).toBe(
      'unknown letters in date mask "YYYY-MM-DDx" (use YYYY, MM, DD, M, D; HH, H, hh, h, A, mm, ss, S…, Z; G, EE, E; T)',
    );
    expect(dateMaskProblem('yyyy-MM-DD')).toBe(
      'unknown letters in date mask "yyyy-MM-DD" (use YYYY, MM, DD, M, D; HH, H, hh, h, A, mm, ss, S…, Z; G, EE, E; T)',
    );
    expect(dateMaskProblem('YYYY-MM-DD 0')).toBe('date mask "YYYY-MM-DD 0" holds a digit');
    for (const mask of ['MM-DD', 'YYYY-DD', 'YYYY-MM', 'YYYY-MM-DD-DD', 'YYYY-MM-MM-DD', 'YYYYYYYY-MM-DD', ''])
      expect(dateMaskProblem(mask)).toBe(
        `date mask ${JSON.stringify(mask)} needs one year (YYYY, or an era G with its year E), one month and one day`,
      );
  });
});

describe('loadProfileFile', () => {
  it('reads a file: its name without extension when it names none, and the file as its source', () => {
    const dir = tempDir();
    const path = join(dir, 'partner.v2.yml');
    writeFileSync(path, CSV);
    expect(loadProfileFile(path)).toMatchObject({ name: 'partner.v2', source: path, sha256: accepted(CSV).sha256 });
    const json = join(dir, 'x.json');
    writeFileSync(json, JSON.stringify({ ...accepted(CSV).spec, name: 'named' }));
    expect(loadProfileFile(json)).toMatchObject({ name: 'named', source: json });
  });

  it('refuses a missing file, a folder, a binary file and one over 1 MiB (at the limit: read), naming the path', () => {
    const dir = tempDir();
    expect(() => loadProfileFile(join(dir, 'none.yaml'))).toThrow(new UserError(`profile ${join(dir, 'none.yaml')}: no such file`));
    expect(() => loadProfileFile(join(dir, 'none', 'x.yaml'))).toThrow(
      new UserError(`profile ${join(dir, 'none', 'x.yaml')}: no such file`),
    );
    const file = writeTestFile('x', 'f.yaml');
    expect(() => loadProfileFile(join(file, 'x.yaml'))).toThrow(new UserError(`profile ${join(file, 'x.yaml')}: cannot read (ENOTDIR)`));
    expect(() => loadProfileFile(dir)).toThrow(new UserError(`profile ${dir}: not a file`));
    const binary = writeTestFile(`${CSV}\u0000`, 'b.yaml');
    expect(() => loadProfileFile(binary)).toThrow(new UserError(`profile ${binary}: not a YAML or JSON profile (a binary file)`));
    const atLimit = writeTestFile(CSV + '#'.repeat(1_048_576 - CSV.length), 'l.yaml');
    expect(loadProfileFile(atLimit).spec.version).toBe(1);
    const over = writeTestFile(CSV + '#'.repeat(1_048_577 - CSV.length), 'o.yaml');
    expect(() => loadProfileFile(over)).toThrow(
      new UserError(`profile ${over}: not a load profile (1048577 bytes; a profile is at most 1048576)`),
    );
  });
});

describe('canonicalJson', () => {
  it('object keys sorted at every depth, undefined left out, arrays in their order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 'x', c: undefined }, 2], c: null })).toBe('{"a":[{"d":"x"},2],"b":1,"c":null}');
    expect(canonicalJson({ B: 1, a: 2, _: 3 })).toBe('{"B":1,"_":3,"a":2}');
    expect(canonicalJson([3, 1, 2])).toBe('[3,1,2]');
    expect(canonicalJson('t')).toBe('"t"');
    expect(canonicalJson({})).toBe('{}');
  });
});
