/**
 * The order-file reader (src/input/order-file.ts) at the edges its other tests left alone, each
 * written against mutants of StrykerJS's `file` group that survived or that no test reached
 * (docs/mutation.md, "Scores of the `file` group"): the encoding a file's first bytes decide, a
 * UTF-16BE file, the raw text kept of a rejected line (its NUL bytes, its length limit), line
 * numbers counted on csv-parse's path (blank lines of every kind before a record, a byte order
 * mark before them, line breaks inside quotes), runs of blank lines longer than the reader holds,
 * byte offsets after a BOM and after bytes that are not UTF-8, a Shift_JIS character cut by a read
 * or by the file's end, a BOM where a resumed read starts, a profile's quote and a delimiter that
 * is not ASCII, how much of the file a small read size reads, the refusals of a file and of a
 * header, the code and message of each kind of rejected line, our own `errors` export read back
 * (U+FFFD in its raw_record column) and a profile's header at its edges (a `when` column first, a
 * name twice, a const column, `extra: keep`).
 *
 * Not yet in the `file` group's list (test/mutation/file/vitest.config.ts): adding it stales the
 * group's score, and the whole-module run that would record it again did not fit in the session
 * that measured it in line ranges (docs/mutation.md, "Scores of the `file` group").
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunAbortedError, UserError } from '../../src/errors.js';
import { fileEncoding, openOrderFile, type FileItem, type OrderFileOptions, type ReadObserver } from '../../src/input/order-file.js';
import { parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';
import { HEADER, tempDir, writeTestFile } from '../support/files.js';

const options: OrderFileOptions = { encoding: 'utf-8', delimiter: ',' };
const ROW = '1,2026-01-01,1,JPY';

interface Read {
  items: FileItem[];
  /** What the observer was told: [lineNo, reason, raw] of each line passed over, [lineNo, source_key] of each line read. */
  passedOver: Array<[number, string, string]>;
  keys: Array<[number, string | null]>;
}

async function read(path: string, with_: Partial<OrderFileOptions> = {}): Promise<Read> {
  const passedOver: Read['passedOver'] = [];
  const keys: Read['keys'] = [];
  const observe: ReadObserver = {
    passedOver: (line) => passedOver.push([line.lineNo, line.reason, line.raw]),
    fieldsRead: (lineNo, raw) => keys.push([lineNo, raw.source_key]),
  };
  const file = await openOrderFile(path, { ...options, observe, ...with_ });
  const items: FileItem[] = [];
  for await (const item of file.items) items.push(item);
  return { items, passedOver, keys };
}

const brief = (items: FileItem[]): Array<[string, number, number, string]> =>
  items.map((i) => [i.kind, i.lineNo, i.endLine, i.kind === 'record' ? i.fields.source_key : i.code]);

const profileOf = (text: string): LoadProfile => parseProfileText(text, 'p.yaml', 'p');

describe('the encoding a file is read with (fileEncoding)', () => {
  it('is the one asked when the file is empty or its first bytes are no byte order mark', async () => {
    expect(await fileEncoding(writeTestFile(''), 'utf-8')).toBe('utf-8');
    // windows-1252 "aþ" and "aÿ", "þa" and "ÿa": half of a UTF-16 byte order mark each
    for (const bytes of [
      [0x61, 0xfe],
      [0x61, 0xff],
      [0xfe, 0x61],
      [0xff, 0x61],
    ])
      expect(await fileEncoding(writeTestFile(Buffer.from([...bytes, 0x0a])), 'windows-1252'), bytes.join(' ')).toBe('windows-1252');
  });

  it('is UTF-16 big-endian by its byte order mark, whatever was asked; a profile’s utf-16 without one refuses the file', async () => {
    const be = writeTestFile(Buffer.from([0xfe, 0xff, ...Buffer.from(`${HEADER}\n`, 'utf16le').swap16()]));
    expect(await fileEncoding(be, 'windows-1252')).toBe('utf-16be');
    const none = writeTestFile(`${HEADER}\n`);
    await expect(fileEncoding(none, 'utf-16')).rejects.toThrow(
      `${none}: encoding utf-16 is known by its byte order mark, and this file has none`,
    );
  });

  it('a UTF-16BE file is read as such: its records, and no byte offset (a decoded encoding)', async () => {
    const text = `${HEADER}\n注文-1,${ROW}\nK-2,${ROW}\n`;
    const path = writeTestFile(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]));
    const { items } = await read(path);
    expect(brief(items)).toEqual([
      ['record', 2, 2, '注文-1'],
      ['record', 3, 3, 'K-2'],
    ]);
    expect(items.map((i) => i.endByte)).toEqual([null, null]);
  });
});

describe('the raw text of a rejected line', () => {
  it('shows a NUL byte as ␀ (U+2400)', async () => {
    const { items } = await read(writeTestFile(`${HEADER}\nA,1,2026-01-01,1,J\u0000Y\n`));
    expect(items).toEqual([
      expect.objectContaining({ kind: 'reject', code: 'PARSE_NUL_BYTE', raw: 'A,1,2026-01-01,1,J\u2400Y', stopsFile: false }),
    ]);
  });

  it('is kept whole up to 4000 characters; a longer one is cut there and ends with …', async () => {
    const line = (length: number): string => `A,${ROW},`.padEnd(length, 'x');
    const { items } = await read(writeTestFile(`${HEADER}\n${line(4000)}\n${line(4001)}\n`));
    expect(
      items.map((i) => [i.kind, i.kind === 'reject' ? i.code : '', i.lineNo, i.raw.length, i.kind === 'reject' && i.stopsFile]),
    ).toEqual([
      ['reject', 'PARSE_FIELD_COUNT', 2, 4000, false],
      ['reject', 'PARSE_FIELD_COUNT', 3, 4001, false],
    ]);
    expect(items[0]?.raw).toBe(line(4000));
    expect(items[1]?.raw).toBe(`${line(4000)}…`);
  });
});

describe('line numbers where csv-parse reads (a quote in the input, a byte order mark first)', () => {
  it('blank lines between the byte order mark and the header: the header is on the line it is on', async () => {
    const { items, passedOver } = await read(writeTestFile(`\ufeff\n\n${HEADER}\n"A",${ROW}\n`));
    expect(passedOver).toEqual([[3, 'header', HEADER]]);
    expect(brief(items)).toEqual([['record', 4, 4, 'A']]);
  });

  it('blank lines before a record: LF, CRLF and lone CR each end one line', async () => {
    const { items } = await read(writeTestFile(`${HEADER}\n"A",${ROW}\n\n\nB,${ROW}\n\r\r\rC,${ROW}\n\r\n\r\nD,${ROW}\n`));
    expect(brief(items)).toEqual([
      ['record', 2, 2, 'A'],
      ['record', 5, 5, 'B'],
      ['record', 9, 9, 'C'],
      ['record', 12, 12, 'D'],
    ]);
  });

  it('line breaks inside a quoted field: a lone CR, two of them, CRLF and LF each end one line', async () => {
    const { items } = await read(writeTestFile(`${HEADER}\n"a\rb",${ROW}\n"a\r\rb",${ROW}\n"a\r\n\nb",${ROW}\nZ,${ROW}\n`));
    expect(brief(items)).toEqual([
      ['record', 2, 3, 'a\rb'],
      ['record', 4, 6, 'a\r\rb'],
      ['record', 7, 9, 'a\r\n\nb'],
      ['record', 10, 10, 'Z'],
    ]);
  });
});

describe('runs of blank lines longer than the reader holds (256 KiB, dropped and counted)', () => {
  // each unit: two lone CRs, a CRLF and an LF (four lines, five bytes), which the quote-free
  // split leaves to csv-parse (a lone CR): the blank lines pile up in the input held
  const UNITS = 120_000;
  const LINES = 4 * UNITS;
  const blank = '\r\r\r\n\n'.repeat(UNITS);

  it('after a record: the next record’s line number and byte offset, for reads that cut a CRLF or not', async () => {
    const text = `${HEADER}\nA,${ROW}\n${blank}B,${ROW}\n`;
    const path = writeTestFile(text);
    for (const readChunkSize of [65_536, 65_537, 65_538, 65_539]) {
      const { items } = await read(path, { readChunkSize });
      expect(brief(items), `reads of ${readChunkSize}`).toEqual([
        ['record', 2, 2, 'A'],
        ['record', 3 + LINES, 3 + LINES, 'B'],
      ]);
      expect(items[1]?.endByte).toBe(Buffer.byteLength(text));
      expect(items[1]?.raw).toBe(`B,${ROW}`);
    }
  });

  it('after a byte order mark, before the header: the header’s line, and the BOM still passed over', async () => {
    const text = `\ufeff${blank}${HEADER}\nA,${ROW}\n`;
    const { items, passedOver } = await read(writeTestFile(text));
    expect(passedOver).toEqual([[1 + LINES, 'header', HEADER]]);
    expect(brief(items)).toEqual([['record', 2 + LINES, 2 + LINES, 'A']]);
    expect(items[0]?.endByte).toBe(Buffer.byteLength(text));
    expect(items[0]?.raw).toBe(`A,${ROW}`);
  });

  it('before the header, without a byte order mark', async () => {
    const text = `${blank}${HEADER}\nA,${ROW}\n`;
    const { items, passedOver } = await read(writeTestFile(text));
    expect(passedOver).toEqual([[1 + LINES, 'header', HEADER]]);
    expect(brief(items)).toEqual([['record', 2 + LINES, 2 + LINES, 'A']]);
    expect(items[0]?.endByte).toBe(Buffer.byteLength(text));
    expect(items[0]?.raw).toBe(`A,${ROW}`);
  });
});

describe('byte offsets and decoding', () => {
  it('UTF-8: a byte order mark and bytes that are not UTF-8 count as the bytes they are in the file', async () => {
    const bytes = Buffer.concat([
      Buffer.from(`\ufeff${HEADER}\nA,${ROW}\n`),
      Buffer.from([0x42, 0xff, 0xfe]),
      Buffer.from(`,${ROW}\nC,${ROW}\n`),
    ]);
    const { items } = await read(writeTestFile(bytes));
    expect(brief(items)).toEqual([
      ['record', 2, 2, 'A'],
      ['reject', 3, 3, 'PARSE_ENCODING'],
      ['record', 4, 4, 'C'],
    ]);
    const lineEnds = [...bytes.entries()].filter(([, b]) => b === 0x0a).map(([i]) => i + 1);
    expect(items.map((i) => i.endByte)).toEqual(lineEnds.slice(1));
  });

  it('Shift_JIS: a character whose lead byte ends one read and whose second byte (ASCII) starts the next is one character', async () => {
    const head = Buffer.from(`${HEADER}\nK`);
    // ア is 0x83 0x41 in Shift_JIS: its second byte is "A"
    const bytes = Buffer.concat([head, Buffer.from([0x83, 0x41]), Buffer.from(`-1,${ROW}\nK-2,${ROW}\n`)]);
    const { items } = await read(writeTestFile(bytes), { encoding: 'shift_jis', readChunkSize: head.length + 1 });
    expect(brief(items)).toEqual([
      ['record', 2, 2, 'Kア-1'],
      ['record', 3, 3, 'K-2'],
    ]);
  });

  it('a read of a file resumed where a line starts with U+FEFF: it is data there, as in the whole file', async () => {
    const text = `${HEADER}\nA,${ROW}\n\ufeffB,${ROW}\n`;
    const path = writeTestFile(text);
    const whole = await read(path);
    expect(brief(whole.items)).toEqual([
      ['record', 2, 2, 'A'],
      ['record', 3, 3, '\ufeffB'],
    ]);
    const resumed = await read(path, { resumeAt: { byte: whole.items[0]?.endByte ?? 0, line: 2 } });
    expect(brief(resumed.items)).toEqual([['record', 3, 3, '\ufeffB']]);
  });

  it('a small read size reads the file a little at a time (the progress shown), not 256 KiB at once', async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => `K-${i},${ROW}`);
    const path = writeTestFile(`${HEADER}\n${rows.join('\n')}\n`);
    const file = await openOrderFile(path, { ...options, readChunkSize: 1024 });
    const items = file.items[Symbol.asyncIterator]();
    expect((await items.next()).value).toMatchObject({ kind: 'record', lineNo: 2 });
    expect(file.bytesRead()).toBeLessThanOrEqual(4096);
    file.close();
  });
});

describe('a profile’s CSV layout', () => {
  const COLUMNS =
    'columns:\n  source_key: { column: "k" }\n  customer_id: { column: "c" }\n' +
    '  order_date: { column: "d", date: "YYYY-MM-DD" }\n  amount: { column: "a" }\n  currency: { column: "cur" }\n';

  it('its quote character quotes a field holding the delimiter', async () => {
    const profile = profileOf(`version: 1\nquote: "'"\n${COLUMNS}`);
    const { items } = await read(writeTestFile(`k,c,d,a,cur\n'K,1',7,2026-12-01,5,JPY\n"K,2",7,2026-12-01,5,JPY\n`), { profile });
    expect(items.map((i) => [i.kind, i.lineNo, i.kind === 'record' ? i.fields.source_key : i.code])).toEqual([
      ['record', 2, 'K,1'],
      ['reject', 3, 'PARSE_FIELD_COUNT'],
    ]);
  });

  it('a delimiter that is not ASCII (¦, two bytes in UTF-8) splits the fields, and only there', async () => {
    const profile = profileOf(`version: 1\ndelimiter: "¦"\n${COLUMNS}`);
    const { items } = await read(writeTestFile(`k¦c¦d¦a¦cur\nK¦7¦2026-12-01¦5¦JPY\nK,¨2¦7¦2026-12-01¦5¦JPY\n`), { profile });
    expect(items.map((i) => [i.kind, i.lineNo, i.kind === 'record' ? i.fields : i.code])).toEqual([
      ['record', 2, { source_key: 'K', customer_id: '7', order_date: '2026-12-01', amount: '5', currency: 'JPY' }],
      ['record', 3, { source_key: 'K,¨2', customer_id: '7', order_date: '2026-12-01', amount: '5', currency: 'JPY' }],
    ]);
  });

  it('header: false: a byte order mark is passed over, not the first field’s text (what preview is told)', async () => {
    const profile = profileOf(
      'version: 1\nheader: false\ncolumns:\n  source_key: { column: 1 }\n  customer_id: { column: 2 }\n' +
        '  order_date: { column: 3, date: "YYYY-MM-DD" }\n  amount: { column: 4 }\n  currency: { column: 5 }\n',
    );
    const { items, keys } = await read(writeTestFile(`\ufeffK-1,${ROW}\nK-2,${ROW}\n`), { profile });
    expect(keys).toEqual([
      [1, 'K-1'],
      [2, 'K-2'],
    ]);
    expect(brief(items)).toEqual([
      ['record', 1, 1, 'K-1'],
      ['record', 2, 2, 'K-2'],
    ]);
  });
});

describe('files refused before any line is read, with what is wrong', () => {
  it('a path that cannot be read, an empty file, a file of blank lines, a read aborted before the header', async () => {
    const notDir = join(writeTestFile(`${HEADER}\n`), 'x.csv');
    await expect(openOrderFile(notDir, options)).rejects.toThrow(new UserError(`${notDir}: cannot read (ENOTDIR)`));
    const dir = tempDir();
    await expect(openOrderFile(dir, options)).rejects.toThrow(new UserError(`${dir}: not a file`));
    const empty = writeTestFile('');
    await expect(openOrderFile(empty, options)).rejects.toThrow(
      new UserError(`${empty}: the file is empty (expected a header line source_key,customer_id,order_date,amount,currency)`),
    );
    const blank = writeTestFile('\n\r\n\n');
    await expect(openOrderFile(blank, options)).rejects.toThrow(
      new UserError(`${blank}: the file has no header line (expected source_key,customer_id,order_date,amount,currency)`),
    );
    const profile = profileOf(
      `version: 1\ncolumns:\n  source_key: { column: "k" }\n  customer_id: { column: "c" }\n  order_date: { column: "d", date: "YYYY-MM-DD" }\n  amount: { column: "a" }\n  currency: { column: "cur" }\n`,
    );
    await expect(openOrderFile(blank, { ...options, profile })).rejects.toThrow(
      new UserError(`${blank}: the file has no header line (expected the header the profile names)`),
    );
    const aborted = new AbortController();
    aborted.abort();
    const whole = writeTestFile(`${HEADER}\nA,${ROW}\n`);
    const refusal = openOrderFile(whole, { ...options, signal: aborted.signal });
    await expect(refusal).rejects.toThrow(RunAbortedError);
    await expect(refusal).rejects.toThrow(`interrupted while reading the header of ${whole}`);
  });

  it('the built-in header: a column twice, one column missing, several missing', async () => {
    const twice = writeTestFile(`${HEADER},Amount\n`);
    await expect(openOrderFile(twice, options)).rejects.toThrow(
      new UserError(`${twice}: line 1: column "amount" appears twice in the header`),
    );
    const one = writeTestFile('source_key,customer_id,order_date,amount\n');
    await expect(openOrderFile(one, options)).rejects.toThrow(
      new UserError(
        `${one}: line 1: missing required column currency (header must name source_key,customer_id,order_date,amount,currency, in any order)`,
      ),
    );
    const two = writeTestFile('source_key,order_date,currency\n');
    await expect(openOrderFile(two, options)).rejects.toThrow(
      new UserError(
        `${two}: line 1: missing required columns customer_id, amount (header must name source_key,customer_id,order_date,amount,currency, in any order)`,
      ),
    );
  });

  it('a profile’s column number past the header’s columns', async () => {
    const profile = profileOf(
      'version: 1\ncolumns:\n  source_key: { column: "k" }\n  customer_id: { column: 2 }\n  order_date: { column: "d", date: "YYYY-MM-DD" }\n' +
        '  amount: { column: 6 }\n  currency: { column: "cur" }\n',
    );
    const path = writeTestFile(`k,c,d,a,cur\nK,7,2026-12-01,5,JPY\n`);
    await expect(openOrderFile(path, { ...options, profile })).rejects.toThrow(
      new UserError(`profile p: columns.amount.column: column 6, but the header of ${path} has 5 columns`),
    );
    const fits = writeTestFile(`k,c,d,a,cur,x\nK,7,2026-12-01,5,JPY,9\n`);
    const { items } = await read(fits, { profile });
    expect(items.map((i) => (i.kind === 'record' ? [i.fields.customer_id, i.fields.amount] : i.code))).toEqual([['7', '9']]);
  });
});

describe('rejected lines: code and message', () => {
  it('UTF-8 and Shift_JIS: bytes the encoding does not have; a NUL byte', async () => {
    const utf8 = await read(
      writeTestFile(Buffer.concat([Buffer.from(`${HEADER}\nA,${ROW}\n`), Buffer.from([0x42, 0xc3, 0x28, 0x2c]), Buffer.from(`${ROW}\n`)])),
    );
    expect(utf8.items[1]).toMatchObject({
      kind: 'reject',
      lineNo: 3,
      code: 'PARSE_ENCODING',
      message: 'the line is not valid UTF-8 (use --encoding shift_jis for a Shift_JIS file)',
    });
    // 0x85 0x40 is no Shift_JIS character
    const sjis = await read(
      writeTestFile(
        Buffer.concat([Buffer.from(`${HEADER}\nA,${ROW}\nB`), Buffer.from([0x85, 0x40]), Buffer.from(`,${ROW}\nC\u0000,${ROW}\n`)]),
      ),
      {
        encoding: 'shift_jis',
      },
    );
    expect(sjis.items.map((i) => [i.kind, i.lineNo, i.kind === 'reject' ? [i.code, i.message] : i.fields.source_key])).toEqual([
      ['record', 2, 'A'],
      ['reject', 3, ['PARSE_ENCODING', 'the line is not valid Shift_JIS: it holds bytes that encoding does not have']],
      ['reject', 4, ['PARSE_NUL_BYTE', 'the line contains a NUL byte (0x00), which no database text value can hold']],
    ]);
  });

  it('through a profile: the field count (with a header, and without one: at least the columns named), the encoding, a NUL byte', async () => {
    const COLS = (a: string, b: string, c: string, d: string, e: string): string =>
      `columns:\n  source_key: { column: ${a} }\n  customer_id: { column: ${b} }\n  order_date: { column: ${c}, date: "YYYY-MM-DD" }\n  amount: { column: ${d} }\n  currency: { column: ${e} }\n`;
    const named = profileOf(`version: 1\n${COLS('"k"', '"c"', '"d"', '"a"', '"cur"')}`);
    const withHeader = await read(
      writeTestFile(
        Buffer.concat([
          Buffer.from(`k,c,d,a,cur\nK,7,2026-12-01,5,JPY,x\nK`),
          Buffer.from([0xff]),
          Buffer.from(',7,2026-12-01,5,JPY\nK\u0000,7,2026-12-01,5,JPY\n'),
        ]),
      ),
      { profile: named },
    );
    expect(withHeader.items.map((i) => [i.kind, i.lineNo, i.kind === 'reject' ? [i.code, i.message] : i.fields.source_key])).toEqual([
      ['reject', 2, ['PARSE_FIELD_COUNT', 'expected 5 fields as in the header, found 6']],
      ['reject', 3, ['PARSE_ENCODING', 'the line is not valid UTF-8 (set encoding: in the profile)']],
      ['reject', 4, ['PARSE_NUL_BYTE', 'the line contains a NUL byte (0x00), which no database text value can hold']],
    ]);
    const numbered = profileOf(`version: 1\nheader: false\n${COLS('1', '2', '3', '5', '4')}`);
    const without = await read(writeTestFile(`K,7,2026-12-01,JPY\nK,7,2026-12-01,JPY,5\nK,7,2026-12-01,JPY,5,x\n`), { profile: numbered });
    expect(without.items.map((i) => [i.kind, i.lineNo, i.kind === 'reject' ? [i.code, i.message] : i.fields.amount])).toEqual([
      ['reject', 1, ['PARSE_FIELD_COUNT', 'expected at least 5 fields, found 4']],
      ['record', 2, '5'],
      ['record', 3, '5'],
    ]);
  });

  it('csv-parse’s errors: a record too large is one line, skipped; an unterminated quote stops the file where its record starts', async () => {
    const long = `B,${ROW},${'x'.repeat(80)}`;
    const { items } = await read(writeTestFile(`${HEADER}\nA,${ROW}\n${long}\n"C,${ROW}\nD,${ROW}\n`), { maxRecordSize: 60 });
    const afterA = `${HEADER}\nA,${ROW}\n`.length;
    expect(items.map((i) => (i.kind === 'record' ? [i.kind, i.lineNo, i.endLine, i.endByte] : { ...i }))).toEqual([
      ['record', 2, 2, afterA],
      {
        kind: 'reject',
        lineNo: 3,
        raw: long,
        code: 'CSV_MAX_RECORD_SIZE',
        message: 'a record is larger than the maximum record size; the line was skipped',
        endByte: afterA + long.length + 1,
        endLine: 3,
        stopsFile: false,
      },
      {
        kind: 'reject',
        lineNo: 4,
        raw: '',
        code: 'CSV_QUOTE_NOT_CLOSED',
        message: 'a quoted field is not closed (unterminated quote); the file could not be read past line 3',
        endByte: afterA + long.length + 1,
        endLine: 4,
        stopsFile: true,
      },
    ]);
  });
});

describe('more of what the reader makes of a file', () => {
  it('the built-in header: names with blanks around them are found, the others kept as extra columns, trimmed', async () => {
    const path = writeTestFile(` source_key ,customer_id , note ,order_date,amount,currency\nA,1, x ,2026-01-01,1,JPY\n`);
    const file = await openOrderFile(path, options);
    expect(file.header.names).toEqual(['source_key', 'customer_id', 'note', 'order_date', 'amount', 'currency']);
    expect(file.header.extraColumns).toEqual(['note']);
    const items: FileItem[] = [];
    for await (const item of file.items) items.push(item);
    expect(brief(items)).toEqual([['record', 2, 2, 'A']]);
  });

  it('a record too large, then blank lines (LF, CRLF): the line is skipped alone, the next record on its own line', async () => {
    const long = `B,${ROW},${'x'.repeat(5000)}`;
    for (const eol of ['\n', '\r\n']) {
      const { items } = await read(writeTestFile(`${HEADER}${eol}${long}${eol}${eol}${eol}C,${ROW}${eol}`), { maxRecordSize: 60 });
      expect(
        items.map((i) => [i.kind, i.lineNo, i.kind === 'record' ? i.fields.source_key : i.code]),
        JSON.stringify(eol),
      ).toEqual([
        ['reject', 2, 'CSV_MAX_RECORD_SIZE'],
        ['record', 5, 'C'],
      ]);
      // its raw text: the first 4000 characters, then …
      expect(items[0]?.raw).toBe(`${long.slice(0, 4000)}…`);
    }
  });

  it('Shift_JIS: a file that ends inside a character: its last line holds a byte the encoding cannot end on', async () => {
    const bytes = Buffer.concat([Buffer.from(`${HEADER}\nA,${ROW}\nB,1,2026-01-01,1,JP`), Buffer.from([0x83])]);
    const { items } = await read(writeTestFile(bytes), { encoding: 'shift_jis' });
    expect(brief(items)).toEqual([
      ['record', 2, 2, 'A'],
      ['reject', 3, 3, 'PARSE_ENCODING'],
    ]);
  });
});

describe('the items and counts a caller sees', () => {
  it('after the last item, and after return(), the items are done; discarded() counts what the profile passed over', async () => {
    const profile = profileOf(
      'version: 1\nskip_lines: 1\ncomment: "#"\nwhen: { column: "s", equals: "ok" }\n' +
        'columns:\n  source_key: { column: "k" }\n  customer_id: { column: "c" }\n  order_date: { column: "d", date: "YYYY-MM-DD" }\n' +
        '  amount: { column: "a" }\n  currency: { const: "JPY" }\n',
    );
    const path = writeTestFile('banner\nk,c,d,a,s\nK-1,7,2026-12-01,5,ok\n# note\nK-2,7,2026-12-01,5,no\nK-3,7,2026-12-01,5,ok\n');
    const passedOver: Array<[number, string, string | undefined]> = [];
    const fields: Array<[number, Record<string, string | null>]> = [];
    const file = await openOrderFile(path, {
      ...options,
      profile,
      observe: { passedOver: (l) => passedOver.push([l.lineNo, l.reason, l.value]), fieldsRead: (n, raw) => fields.push([n, raw]) },
    });
    const items: FileItem[] = [];
    for await (const item of file.items) items.push(item);
    expect(items.map((i) => [i.lineNo, i.kind === 'record' ? i.fields.source_key : i.code])).toEqual([
      [3, 'K-1'],
      [6, 'K-3'],
    ]);
    expect(passedOver).toEqual([
      [1, 'skip_lines', undefined],
      [2, 'header', undefined],
      [4, 'comment', undefined],
      [5, 'when', 'no'],
    ]);
    expect(fields).toEqual([
      [3, { source_key: 'K-1', customer_id: '7', order_date: '2026-12-01', amount: '5', currency: null }],
      [6, { source_key: 'K-3', customer_id: '7', order_date: '2026-12-01', amount: '5', currency: null }],
    ]);
    expect(file.discarded()).toBe(2);
    expect(await file.items[Symbol.asyncIterator]().next()).toEqual({ done: true, value: undefined });

    const again = await openOrderFile(path, { ...options, profile });
    const it = again.items[Symbol.asyncIterator]();
    expect((await it.next()).value).toMatchObject({ lineNo: 3 });
    expect(await it.return?.()).toEqual({ done: true, value: undefined });
    expect(await it.next()).toEqual({ done: true, value: undefined });
    again.close();
  });
});

describe('our own errors export read back, and a profile’s header at its edges', () => {
  const EXPORT_HEADER = 'source_key,customer_id,order_date,amount,currency,error_code,error_message,line_no,load_id,raw_record';

  it('an errors export: U+FFFD in its raw_record column is the rejected line’s text, kept; in an order column the line is rejected', async () => {
    const { items } = await read(
      writeTestFile(
        `${EXPORT_HEADER}\nA,1,2026-01-01,1,JPY,PARSE_ENCODING,m,3,1,B\uFFFD\nB\uFFFD,1,2026-01-01,1,JPY,PARSE_ENCODING,m,4,1,x\n` +
          `C,1,2026-01-01,1\uFFFD,JPY,PARSE_ENCODING,m,5,1,y\n`,
      ),
    );
    expect(items.map((i) => [i.kind, i.lineNo, i.kind === 'record' ? i.fields.source_key : i.code])).toEqual([
      ['record', 2, 'A'],
      ['reject', 3, 'PARSE_ENCODING'],
      ['reject', 4, 'PARSE_ENCODING'],
    ]);
  });

  const COLUMNS =
    'columns:\n  source_key: { column: "k" }\n  customer_id: { column: "c" }\n' +
    '  order_date: { column: "d", date: "YYYY-MM-DD" }\n  amount: { column: "a" }\n';

  it('a `when` column that is the first of the header: applied, and not an extra column', async () => {
    const profile = profileOf(`version: 1\nwhen: { column: "s", equals: "ok" }\n${COLUMNS}  currency: { const: "JPY" }\n`);
    const path = writeTestFile('s,k,c,d,a\nno,K-1,7,2026-12-01,5\nok,K-2,7,2026-12-01,5\n');
    const file = await openOrderFile(path, { ...options, profile });
    expect(file.header.extraColumns).toEqual([]);
    // a const column has no place in the file
    expect([...file.header.positions.keys()].sort()).toEqual(['amount', 'customer_id', 'order_date', 'source_key']);
    const items: FileItem[] = [];
    for await (const item of file.items) items.push(item);
    expect(items.map((i) => [i.kind, i.lineNo, i.kind === 'record' ? i.fields.source_key : i.code])).toEqual([['record', 3, 'K-2']]);
    expect(file.discarded()).toBe(1);
  });

  it('a name the header has twice, the first time as its first column; a `when` column not in the header', async () => {
    const profile = profileOf(`version: 1\n${COLUMNS}  currency: { column: "cur" }\n`);
    const twice = writeTestFile('k,c,d,a,cur,k\n');
    await expect(openOrderFile(twice, { ...options, profile })).rejects.toThrow(
      new UserError(
        `profile p: columns.source_key.column: "k" names columns 1 and 6 of the header of ${twice}: which one is meant cannot be told`,
      ),
    );
    const withWhen = profileOf(`version: 1\nwhen: { column: "zz", equals: "ok" }\n${COLUMNS}  currency: { column: "cur" }\n`);
    const path = writeTestFile('k,c,d,a,cur\n');
    await expect(openOrderFile(path, { ...options, profile: withWhen })).rejects.toThrow(
      new UserError(`profile p: when.column: column "zz" is not in the header of ${path} (line 1: k, c, d, a, cur)`),
    );
  });

  it('extra: keep: the header tells which columns are kept as attributes', async () => {
    const profile = profileOf(`version: 1\nextra: keep\n${COLUMNS}  currency: { column: "cur" }\n`);
    const file = await openOrderFile(writeTestFile('k,c,region,d,a,cur\nK,7,east,2026-12-01,5,JPY\n'), { ...options, profile });
    expect(file.header.attributes).toMatchObject({ indexes: [2] });
    const items: FileItem[] = [];
    for await (const item of file.items) items.push(item);
    expect(items.map((i) => (i.kind === 'record' ? i.attributes : i.code))).toEqual(['{"region":"east"}']);
  });
});
