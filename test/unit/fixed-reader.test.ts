/**
 * The fixed-width reader (src/input/profile/fixed-reader.ts) without a database: every line a
 * record, a rejection or passed over, with the byte offset just past it (a resume point); a
 * field that cuts a character, or a line shorter than its last field, a PARSE_* rejection, never
 * a corrupted value. More with a Shift_JIS file: profile.test.ts.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { openOrderFile, type FileItem, type PassedOverReason } from '../../src/input/order-file.js';
import { splitFixedText } from '../../src/input/profile/fixed-reader.js';
import { parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';
import { FIXED_RECORD_LIMIT } from '../../src/input/profile/schema.js';
import { writeTestFile } from '../support/files.js';

/** K(4) C(3) YYYYMMDD(8) amount(5): 20 bytes a line. */
const BASE = `version: 1
format: fixed
columns:
  source_key: { at: [1, 4] }
  customer_id: { at: [5, 3] }
  order_date: { at: [8, 8], date: "YYYYMMDD" }
  amount: { at: [16, 5] }
  currency: { const: "JPY" }
`;
const profileOf = (extra = '', base = BASE): LoadProfile => parseProfileText(`${base}${extra}`, 'p.yaml', 'p');

/** Each item as [kind, line, key or code, end byte]. */
type Row = [string, number, string, number | null];

async function read(
  content: string | Buffer,
  profile: LoadProfile,
  options: { encoding?: 'utf-8' | 'shift_jis'; resumeAt?: { byte: number; line: number }; gzip?: boolean } = {},
): Promise<{ items: FileItem[]; rows: Row[]; discarded: number; passed: Array<[number, PassedOverReason, string, string?]> }> {
  const path = writeTestFile(content);
  const passed: Array<[number, PassedOverReason, string, string?]> = [];
  const file = await openOrderFile(path, {
    encoding: options.encoding ?? 'utf-8',
    delimiter: ',',
    profile,
    resumeAt: options.resumeAt,
    observe: {
      // a line passed over for another reason than `when` carries no value key at all
      passedOver: (l) => passed.push('value' in l ? [l.lineNo, l.reason, l.raw, l.value] : [l.lineNo, l.reason, l.raw]),
      fieldsRead: () => undefined,
    },
  });
  const items: FileItem[] = [];
  try {
    for await (const item of file.items) items.push(item);
  } finally {
    file.close();
  }
  const rows = items.map((i): Row => [i.kind, i.lineNo, i.kind === 'record' ? i.fields.source_key : i.code, i.endByte]);
  return { items, rows, discarded: file.discarded(), passed };
}

const line = (key: string, amount = '00100') => `${key}0072026010${key.at(-1) === '9' ? '9' : '5'}${amount}`;

describe('the fixed-width reader: lines, ends and offsets', () => {
  it('LF, CRLF and a lone CR end a line; the offset past each; a last line without an end; blank lines no record', async () => {
    const content = `${line('K001')}\n${line('K002')}\r\n${line('K003')}\r\n\n${line('K004')}\r${line('K005')}`;
    const { rows, items } = await read(content, profileOf());
    expect(rows).toEqual([
      ['record', 1, 'K001', 21],
      ['record', 2, 'K002', 43],
      ['record', 3, 'K003', 65],
      ['record', 5, 'K004', 87],
      ['record', 6, 'K005', 107],
    ]);
    const first = items[0]!;
    expect(first.kind === 'record' && first.fields).toEqual({
      source_key: 'K001',
      customer_id: '007',
      order_date: '2026-01-05',
      amount: '00100',
      currency: 'JPY',
    });
    expect(first.raw).toBe(line('K001'));
    expect(first.endLine).toBe(1);
  });

  it('a UTF-8 byte order mark is no part of the first line; resuming at an offset reads on from there, counting lines from it', async () => {
    const content = `\ufeff${line('K001')}\n${line('K002')}\n${line('K003')}\n`;
    expect((await read(content, profileOf())).rows).toEqual([
      ['record', 1, 'K001', 24],
      ['record', 2, 'K002', 45],
      ['record', 3, 'K003', 66],
    ]);
    expect((await read(content, profileOf(), { resumeAt: { byte: 45, line: 2 } })).rows).toEqual([['record', 3, 'K003', 66]]);
    // a BOM only at the start of the file: not where a resumed read starts (there it shifts the fields)
    const bomLater = `${line('K001')}\n\ufeff${line('K002')}\n`;
    const { items } = await read(bomLater, profileOf(), { resumeAt: { byte: 21, line: 1 } });
    expect(items.map((i) => i.kind === 'record' && i.fields.customer_id)).toEqual(['002']);
  });

  it('a CR at the end of a chunk read (256 KiB) followed by LF is one line end, not two', async () => {
    // a first line of 262,143 bytes: its CR is the first chunk's last byte, its LF the next chunk's first
    const long = `${line('K001')}${' '.repeat(262_143 - 20)}`;
    const { rows } = await read(`${long}\r\n${line('K002')}\r\n`, profileOf());
    expect(rows).toEqual([
      ['record', 1, 'K001', 262_145],
      ['record', 2, 'K002', 262_167],
    ]);
  });

  it('a line longer than the longest record: rejected with its head kept, the next line read', async () => {
    const long = `${line('K001')}${'x'.repeat(FIXED_RECORD_LIMIT + 300_000)}`;
    const { items, rows } = await read(`${long}\n${line('K002')}\n`, profileOf());
    expect(rows).toEqual([
      ['reject', 1, 'CSV_MAX_RECORD_SIZE', long.length + 1],
      ['record', 2, 'K002', long.length + 22],
    ]);
    const reject = items[0]!;
    expect(reject.kind === 'reject' && reject.message).toBe(
      `the line is longer than the longest record read (${FIXED_RECORD_LIMIT} bytes); the line was skipped`,
    );
    // the text logged: the first 4000 characters and a mark that it was cut
    expect(reject.raw).toBe(`${long.slice(0, 4000)}…`);
    // the same at the end of a file without a line end
    const last = await read(`${line('K000')}\n${long}`, profileOf());
    expect(last.rows).toEqual([
      ['record', 1, 'K000', 21],
      ['reject', 2, 'CSV_MAX_RECORD_SIZE', 21 + long.length],
    ]);
  });
});

describe('the fixed-width reader: what is rejected, and what is passed over', () => {
  it('a line shorter than its last field, a NUL byte, bytes that are not UTF-8: PARSE_* with the line text', async () => {
    const bytes = Buffer.concat([
      Buffer.from(`${line('K001')}\n${line('K002').slice(0, 19)}\nK003\u0000${line('K003').slice(5)}\n`),
      Buffer.from([0x4b, 0x80, 0x30, 0x34]),
      Buffer.from(`${line('K004').slice(4)}\n${line('K005')}\n`),
    ]);
    const { items, rows } = await read(bytes, profileOf());
    expect(rows).toEqual([
      ['record', 1, 'K001', 21],
      ['reject', 2, 'PARSE_FIXED_SHORT', 41],
      ['reject', 3, 'PARSE_NUL_BYTE', 62],
      ['reject', 4, 'PARSE_ENCODING', 83],
      ['record', 5, 'K005', 104],
    ]);
    const messages = items.map((i) => (i.kind === 'reject' ? [i.message, i.raw, i.endLine, i.stopsFile] : null));
    expect(messages[1]).toEqual([
      'the line is 19 bytes: columns.amount at 16–20 reaches past its end',
      line('K002').slice(0, 19),
      2,
      false,
    ]);
    expect(messages[2]).toEqual([
      'the line contains a NUL byte (0x00), which no database text value can hold',
      `K003\u2400${line('K003').slice(5)}`,
      3,
      false,
    ]);
    expect(messages[3]).toEqual([
      'the line is not valid UTF-8 (set encoding: in the profile)',
      `K\uFFFD04${line('K004').slice(4)}`,
      4,
      false,
    ]);
  });

  it('counted in bytes: a field that cuts a multibyte character is PARSE_FIXED_SPLIT, at its start or its end', async () => {
    // "é" is 2 bytes in UTF-8: in K00é the key's field ends inside it
    const cut = `K00é${line('K001').slice(5)}`;
    const { items, rows } = await read(`${cut}\n${line('K002')}\n`, profileOf());
    expect(rows).toEqual([
      ['reject', 1, 'PARSE_FIXED_SPLIT', 21],
      ['record', 2, 'K002', 42],
    ]);
    expect(items[0]!.kind === 'reject' && items[0]!.message).toBe(
      'columns.source_key at 1–4 cuts a multi-byte character between bytes 4 and 5',
    );
    // a character that ends where a field ends: read
    const fits = `Ké0${line('K001').slice(4)}`;
    const ok = await read(`${fits}\n`, profileOf());
    expect(ok.rows).toEqual([['record', 1, 'Ké0', Buffer.byteLength(fits) + 1]]);
    // three- and four-byte characters
    const wide = await read(`K€${line('K001').slice(4)}\n𠮷${line('K001').slice(4)}\n`, profileOf());
    expect(wide.rows.map((r) => r[2])).toEqual(['K€', '𠮷']);
  });

  it('counted in characters (units: chars): the same line with a multibyte key is read, a short one rejected in characters', async () => {
    const chars = profileOf('units: chars\n');
    const { rows, items } = await read(`é€𠮷K${line('K001').slice(4)}\n${line('K002').slice(0, 18)}\n`, chars);
    expect(rows).toEqual([
      ['record', 1, 'é€𠮷K', Buffer.byteLength(`é€𠮷K${line('K001').slice(4)}`) + 1],
      ['reject', 2, 'PARSE_FIXED_SHORT', Buffer.byteLength(`é€𠮷K${line('K001').slice(4)}`) + 20],
    ]);
    expect(items[1]!.kind === 'reject' && items[1]!.message).toBe(
      'the line is 18 characters: columns.amount at 16–20 reaches past its end',
    );
  });

  it('Shift_JIS in bytes: a double-byte character takes two, a half-width katakana one; a cut one is rejected', async () => {
    const sjis = profileOf('encoding: shift_jis\n');
    // 注 is 0x92 0x8d; ｱ is 0xb1
    const ok = Buffer.concat([Buffer.from([0x92, 0x8d, 0xb1, 0x31]), Buffer.from(`${line('K001').slice(4)}\n`)]);
    const split = Buffer.concat([Buffer.from([0x31, 0x32, 0x33, 0x92, 0x8d]), Buffer.from(`${line('K001').slice(5)}\n`)]);
    const { rows } = await read(Buffer.concat([ok, split]), sjis, { encoding: 'shift_jis' });
    expect(rows).toEqual([
      ['record', 1, '注ｱ1', 21],
      ['reject', 2, 'PARSE_FIXED_SPLIT', 42],
    ]);
  });

  it('skip_lines and comments are passed over, told to the observer and counted; a when filter too, with its value', async () => {
    const profile = profileOf('skip_lines: 2\ncomment: "#"\nwhen: { at: [21, 1], equals: "D" }\n');
    const content = `banner\n${line('K000')}D\n# a note\n${line('K001')}D\n${line('K002')}X\n#${line('K003')}D\n${line('K004')}D\n`;
    const { rows, passed, discarded } = await read(content, profile);
    expect(rows.map((r) => [r[0], r[1], r[2]])).toEqual([
      ['record', 4, 'K001'],
      ['record', 7, 'K004'],
    ]);
    expect(passed).toEqual([
      [1, 'skip_lines', 'banner'],
      [2, 'skip_lines', `${line('K000')}D`],
      [3, 'comment', '# a note'],
      [5, 'when', `${line('K002')}X`, 'X'],
      [6, 'comment', `#${line('K003')}D`],
    ]);
    expect(discarded).toBe(5);
    // the when field counted in characters
    const chars = profileOf('units: chars\nwhen: { at: [2, 1], equals: "é" }\n', BASE.replace('[1, 4]', '[3, 2]'));
    const c = await read(`xé${line('K001').slice(2)}\nxe${line('K002').slice(2)}\n`, chars);
    expect(c.rows.map((r) => r[2])).toEqual(['01']);
  });

  it('a damaged gzip file: the lines before the damage, then one rejection that stops the file', async () => {
    const content = Array.from({ length: 3000 }, (_, i) => line(`K${String(i).padStart(3, '0')}`.slice(-4))).join('\n');
    const gz = gzipSync(content);
    const cut = gz.subarray(0, gz.length - 8);
    const { items } = await read(cut, profileOf());
    const last = items.at(-1)!;
    expect(last.kind).toBe('reject');
    expect(last.kind === 'reject' && [last.code, last.stopsFile, last.raw]).toEqual(['GZIP_TRUNCATED', true, '']);
    const records = items.length - 1;
    expect(last.lineNo).toBe(records + 1);
    expect(last.kind === 'reject' && last.message).toBe(
      `the gzip data ends early (the file is truncated); the file could not be read past line ${records}`,
    );
  });
});

describe('splitFixedText: a logged line split again', () => {
  it('in bytes of the file encoding, in characters with units: chars; what does not fit whole is left out', () => {
    const profile = profileOf();
    expect(splitFixedText(line('K001'), profile, 'utf-8')).toEqual({
      source_key: 'K001',
      customer_id: '007',
      order_date: '2026-01-05',
      amount: '00100',
      currency: 'JPY',
    });
    // é is 2 bytes in UTF-8 and Shift_JIS, ｱ one byte in Shift_JIS and 3 in UTF-8
    expect(splitFixedText(`Ké0${line('K001').slice(4)}`, profile, 'utf-8').source_key).toBe('Ké0');
    expect(splitFixedText(`ｱK01${line('K001').slice(4)}`, profile, 'shift_jis').source_key).toBe('ｱK01');
    expect(splitFixedText(`ｱK01${line('K001').slice(4)}`, profile, 'utf-8').source_key).toBe('ｱK');
    expect(splitFixedText(`注K0${line('K001').slice(4)}`, profile, 'euc-jp').source_key).toBe('注K0');
    expect(splitFixedText(`éK01${line('K001').slice(4)}`, profile, 'windows-1252').source_key).toBe('éK01');
    const chars = profileOf('units: chars\n');
    expect(splitFixedText(`𠮷é€K${line('K001').slice(4)}`, chars, 'utf-8').source_key).toBe('𠮷é€K');
    // a short line: what is there
    expect(splitFixedText('K001007', profile, 'utf-8')).toMatchObject({ source_key: 'K001', customer_id: '007', amount: '' });
  });
});

describe('the reader is stopped', () => {
  it('by an aborted signal or by close(): no further line', async () => {
    const path = writeTestFile(`${line('K001')}\n${line('K002')}\n`);
    const controller = new AbortController();
    const aborted = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile: profileOf(), signal: controller.signal });
    controller.abort();
    const items: FileItem[] = [];
    for await (const item of aborted.items) items.push(item);
    expect(items).toEqual([]);
    aborted.close();
    const closed = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile: profileOf() });
    closed.close();
    expect(await closed.items[Symbol.asyncIterator]().next()).toEqual({ done: true, value: undefined });
    // not stopped: both lines
    const open = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile: profileOf() });
    const all: FileItem[] = [];
    for await (const item of open.items) all.push(item);
    open.close();
    expect(all).toHaveLength(2);
  });
});
