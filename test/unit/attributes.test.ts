/**
 * The other columns of a file kept as attributes (src/input/profile/attributes.ts),
 * as the readers find them, as COPY carries them, and as `errors` writes them.
 */
import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { ERRORS_CSV_HELD_ROWS, writeErrorsCsv } from '../../src/cli/errors-csv.js';
import { copyText } from '../../src/engine/postgres/copy-text.js';
import { UserError } from '../../src/errors.js';
import { openOrderFile, type FileItem } from '../../src/input/order-file.js';
import { attributesJson, canonicalAttributes, parseAttributes } from '../../src/input/profile/attributes.js';
import { parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';
import { rawLineAttributes } from '../../src/input/raw-line.js';
import type { ErrorExportRow } from '../../src/pipeline/errors-export.js';
import { writeTestFile } from '../support/files.js';

const profileWith = (extra: string, header = true): LoadProfile =>
  parseProfileText(
    `version: 1
header: ${String(header)}
columns:
  source_key: { column: ${header ? '"Key"' : '2'} }
  customer_id: { column: ${header ? '"Customer"' : '3'} }
  order_date: { column: ${header ? '"Date"' : '4'} }
  amount: { column: ${header ? '"Amount"' : '5'} }
  currency: { const: "JPY" }
extra: ${extra}
`,
    'p.yaml',
    'p',
  );

async function records(path: string, profile?: LoadProfile): Promise<{ items: FileItem[]; extraColumns: string[] }> {
  const file = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile });
  const items: FileItem[] = [];
  for await (const item of file.items) items.push(item);
  return { items, extraColumns: file.header.extraColumns };
}

const attributesOf = (items: FileItem[]) => items.map((i) => (i.kind === 'record' ? i.attributes : i.code));

describe('attributes as JSON text', () => {
  test('canonical: keys in code-unit order, values trimmed, an empty one left out, none at all is null', () => {
    expect(canonicalAttributes({ b: ' 2 ', a: '1', 'Z z': 'x', empty: '  ' })).toBe('{"Z z":"x","a":"1","b":"2"}');
    expect(canonicalAttributes({ a: '', b: ' ' })).toBeNull();
    expect(canonicalAttributes(null)).toBeNull();
    const text = canonicalAttributes({ q: 'say "hi"\\ \n\t日本' });
    expect(text).toBe('{"q":"say \\"hi\\"\\\\ \\n\\t日本"}');
    expect(parseAttributes(text)).toEqual({ q: 'say "hi"\\ \n\t日本' });
    // as PostgreSQL's jsonb gives it back (its own key order and spacing)
    expect(parseAttributes('{"b": "2", "aa": "1"}')).toEqual({ b: '2', aa: '1' });
    expect(parseAttributes('[1]')).toBeNull();
    // a column named __proto__ is kept as an attribute of that name, not made the object's prototype
    expect(Object.entries(parseAttributes('{"__proto__": "a", "constructor": "b"}') ?? {})).toEqual([
      ['__proto__', 'a'],
      ['constructor', 'b'],
    ]);
    expect(attributesJson(['x', ' y '], { indexes: [1], names: ['n'], keys: ['"n":'] })).toBe('{"n":"y"}');
  });

  test('COPY text format carries them escaped: backslashes doubled, a literal \\N is not NULL, none is \\N', () => {
    const attributes = canonicalAttributes({ a: 'back\\slash', n: '\\N', t: 'tab\there' });
    const text = copyText(7, [
      { sourceKey: 'K1', customerId: '1', orderDate: '2026-12-01', amount: '1', currency: 'JPY', lineNo: 2, attributes },
      { sourceKey: 'K2', customerId: '1', orderDate: '2026-12-01', amount: '1', currency: 'JPY', lineNo: 3 },
    ]);
    const [first, second] = text.split('\n');
    expect(first?.split('\t').at(-1)).toBe('{"a":"back\\\\\\\\slash","n":"\\\\\\\\N","t":"tab\\\\there"}');
    expect(second?.split('\t').at(-1)).toBe('\\N');
    // every field of a line is a column: one more than before, for every row
    expect(first?.split('\t')).toHaveLength(11);
  });
});

describe('a CSV file read through a profile with extra', () => {
  const file = () => writeTestFile('Note,Key,Customer,Date,Amount,Region,Empty\n"a, b",K1,1,2026-12-01,5, EU ,\n,K2,2,2026-12-01,6,,\n');

  test('keep: every other column, by its header name; a line whose kept columns are all empty has none', async () => {
    const { items, extraColumns } = await records(file(), profileWith('keep'));
    expect(attributesOf(items)).toEqual(['{"Note":"a, b","Region":"EU"}', null]);
    // kept columns are not "ignored"
    expect(extraColumns).toEqual([]);
  });

  test('a list: only the columns named (matched as the profile matches names); the others ignored as before', async () => {
    const { items, extraColumns } = await records(file(), profileWith('["region"]'));
    expect(attributesOf(items)).toEqual(['{"Region":"EU"}', null]);
    expect(extraColumns).toEqual(['Note', 'Empty']);
  });

  test('ignore: none kept, every record as before; written in the profile, the columns are not listed to warn about', async () => {
    const { items, extraColumns } = await records(file(), profileWith('ignore'));
    expect(attributesOf(items)).toEqual([null, null]);
    expect(extraColumns).toEqual([]);
    // without extra (the default) they are ignored and listed for the warning, as before
    const unsaid = { ...profileWith('ignore') };
    delete unsaid.quietExtra;
    expect((await records(file(), unsaid)).extraColumns).toEqual(['Note', 'Region', 'Empty']);
  });

  test('a header-less file: the other fields named by their 1-based number', async () => {
    const path = writeTestFile('x,K1,1,2026-12-01,5,y\nz,K2,2,2026-12-01,6\n');
    const { items } = await records(path, profileWith('keep', false));
    expect(attributesOf(items)).toEqual(['{"1":"x","6":"y"}', '{"1":"z"}']);
  });

  test('refused before anything is read: a listed column the header lacks, a kept column named as an export column, one named twice', async () => {
    const refusal = async (content: string, extra: string) => {
      const error = await records(writeTestFile(content), profileWith(extra)).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UserError);
      return (error as Error).message;
    };
    expect(await refusal('Key,Customer,Date,Amount\nK1,1,2026-12-01,5\n', '["Region"]')).toMatch(
      /^profile p: .*: extra: column "Region" is not in the header$/,
    );
    expect(await refusal('Key,Customer,Date,Amount,currency\nK1,1,2026-12-01,5,EUR\n', 'keep')).toMatch(
      /extra: the column "currency" has the name of a column of the errors export/,
    );
    expect(await refusal('Key,Customer,Date,Amount,N,N\nK1,1,2026-12-01,5,a,b\n', 'keep')).toMatch(/extra: the column "N" appears twice/);
  });
});

describe('an errors export read back by the built-in reader', () => {
  test('its columns past the export’s own are kept as the attributes (formula guard removed); the export’s own ignored as before', async () => {
    const path = writeTestFile(
      'source_key,customer_id,order_date,amount,currency,error_code,error_message,line_no,load_id,raw_record,Region,Formula\n' +
        "K1,1,2026-12-01,5,JPY,X,m,2,1,raw,EU,'=SUM(A1)\n" +
        'K2,1,2026-12-01,5,JPY,X,m,3,1,raw,,\n',
    );
    const { items, extraColumns } = await records(path);
    expect(attributesOf(items)).toEqual(['{"Formula":"=SUM(A1)","Region":"EU"}', null]);
    expect(extraColumns).toEqual(['error_code', 'error_message', 'line_no', 'load_id', 'raw_record']);
  });

  test('a plain file with extra columns keeps none (the built-in format is unchanged)', async () => {
    const { items, extraColumns } = await records(
      writeTestFile('source_key,customer_id,order_date,amount,currency,Region\nK1,1,2026-12-01,5,JPY,EU\n'),
    );
    expect(attributesOf(items)).toEqual([null]);
    expect(extraColumns).toEqual(['Region']);
  });

  test('a rejected line of such a file gives its attributes again from its raw text', () => {
    const profile = profileWith('keep');
    const layout = {
      header: ['Note', 'Key', 'Customer', 'Date', 'Amount', 'Region'],
      delimiter: ',',
      profile: { ...profile, encoding: 'utf-8' },
    };
    expect(rawLineAttributes('"a, b",K1,1,bad,5,EU', layout)).toEqual({ Note: 'a, b', Region: 'EU' });
    expect(
      rawLineAttributes('K1,1,2026-12-01,5', { header: ['source_key', 'customer_id', 'order_date', 'amount'], delimiter: ',' }),
    ).toBeNull();
  });
});

describe("a rejected line's attributes from its raw text (rawLineAttributes)", () => {
  const EXPORT = [
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
  ];
  const withProfile = (profile: LoadProfile, header: string[]) => ({
    header,
    delimiter: ',',
    profile: { ...profile, encoding: 'utf-8' as const },
  });

  test('an errors export read back: the columns after its own, names trimmed, formulas restored', () => {
    const layout = { header: [...EXPORT.map((n) => n.toUpperCase()), ' Region ', 'Note'], delimiter: ',' };
    expect(rawLineAttributes("K1,1,2026-12-01,,JPY,INVALID_AMOUNT,amount is missing,3,1,,EU,'=SUM(A1)", layout)).toEqual({
      Region: 'EU',
      Note: '=SUM(A1)',
    });
    // an empty attribute is left out; none left: null
    expect(rawLineAttributes('K1,1,2026-12-01,,JPY,E,m,3,1,,,', layout)).toBeNull();
  });

  test('an errors export with no attribute columns, or a plain file, keeps none', () => {
    expect(rawLineAttributes('K1,1,2026-12-01,,JPY,E,m,3,1,', { header: EXPORT, delimiter: ',' })).toBeNull();
    expect(
      rawLineAttributes('K1,1,2026-12-01,5,JPY,EU', {
        header: ['source_key', 'customer_id', 'order_date', 'amount', 'currency', 'Region'],
        delimiter: ',',
      }),
    ).toBeNull();
  });

  test('a profile: extra as a list keeps only the columns it names; extra: ignore keeps none', () => {
    const header = ['Note', 'Key', 'Customer', 'Date', 'Amount', 'Region'];
    expect(rawLineAttributes('n,K1,1,bad,5,EU', withProfile(profileWith('[Region]'), header))).toEqual({ Region: 'EU' });
    expect(rawLineAttributes('n,K1,1,bad,5,EU', withProfile(profileWith('ignore'), header))).toBeNull();
  });

  test('a header-less profile keeps the other fields by their 1-based number', () => {
    expect(rawLineAttributes('n,K1,1,bad,5,EU', withProfile(profileWith('keep', false), []))).toEqual({ '1': 'n', '6': 'EU' });
  });

  test('a profile’s mapped column in the first place of the header is not kept as an attribute', () => {
    const header = ['Key', 'Customer', 'Date', 'Amount', 'Region'];
    expect(rawLineAttributes('K1,1,bad,5,EU', withProfile(profileWith('keep'), header))).toEqual({ Region: 'EU' });
    // by number too: the first field is the source key, the rest past the mapped ones are kept
    const byNumber = profileWith('keep', false);
    expect(rawLineAttributes('n,K1,1,bad,5,EU,x', withProfile(byNumber, []))).toEqual({ '1': 'n', '6': 'EU', '7': 'x' });
  });

  test('a profile with a header whose load recorded none: extra as a list keeps nothing (no positional guess)', () => {
    expect(rawLineAttributes('n,K1,1,bad,5,EU', withProfile(profileWith('[Region]'), []))).toBeNull();
  });

  test('an errors export read back: its own columns are recognised in any case and with blanks around them', () => {
    const layout = { header: [...EXPORT.slice(0, 7), ' Line_No ', ' LOAD_ID', 'raw_record ', 'Region'], delimiter: ',' };
    expect(rawLineAttributes('K1,1,2026-12-01,,JPY,E,m,3,1,raw,EU', layout)).toEqual({ Region: 'EU' });
  });
});

describe('the errors CSV', () => {
  const row = (i: number, attributes?: Record<string, string>): ErrorExportRow => ({
    stageId: i,
    sourceKey: `K${i}`,
    customerId: '1',
    orderDate: '2026-12-01',
    amount: '1.00',
    currency: 'JPY',
    status: 'ERROR',
    attemptCount: 1,
    loadId: 1,
    lineNo: i + 1,
    errorCode: 'X',
    errorMessage: 'm',
    updatedAt: null,
    phase: 'VALIDATE',
    rawRecord: null,
    loggedAt: null,
    valuesFrom: 'stage',
    ...(attributes === undefined ? {} : { attributes }),
  });

  async function csvOf(rows: ErrorExportRow[]): Promise<{ text: string; reads: number }> {
    let text = '';
    let reads = 0;
    const out = new Writable({
      write(chunk: Buffer, _enc, done) {
        text += chunk.toString('utf8');
        done();
      },
    });
    await writeErrorsCsv(() => {
      reads++;
      return (async function* () {
        yield* rows;
      })();
    }, out);
    return { text, reads };
  }

  test('one column per attribute name of the rows (their union, in code-unit order); read once when the rows fit in memory', async () => {
    const { text, reads } = await csvOf([row(1, { b: '2' }), row(2), row(3, { a: '=x', b: '3' })]);
    expect(reads).toBe(1);
    const lines = text.trim().split('\n');
    expect(lines[0]).toBe('source_key,customer_id,order_date,amount,currency,error_code,error_message,line_no,load_id,raw_record,a,b');
    expect(lines.slice(1).map((l) => l.split(',').slice(-2))).toEqual([
      ['', '2'],
      ['', ''],
      ["'=x", '3'],
    ]);
  });

  test('without attributes: the ten columns as before', async () => {
    const { text } = await csvOf([row(1)]);
    expect(text.split('\n')[0]).toBe(
      'source_key,customer_id,order_date,amount,currency,error_code,error_message,line_no,load_id,raw_record',
    );
  });

  test('a longer export is read twice: the names first (a name only its last row has is a column), then the rows', async () => {
    const rows = Array.from({ length: ERRORS_CSV_HELD_ROWS + 1 }, (_, i) =>
      row(i + 1, i === ERRORS_CSV_HELD_ROWS ? { late: 'yes' } : undefined),
    );
    const { text, reads } = await csvOf(rows);
    expect(reads).toBe(2);
    const lines = text.trim().split('\n');
    expect(lines[0]?.endsWith(',raw_record,late')).toBe(true);
    expect(lines).toHaveLength(ERRORS_CSV_HELD_ROWS + 2);
    expect(lines.at(-1)?.endsWith(',yes')).toBe(true);
  });
});
