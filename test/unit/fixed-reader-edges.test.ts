/**
 * Edges of the fixed-width reader (src/input/profile/fixed-reader.ts) beside fixed-reader.test.ts,
 * without a database: the widths of a character's first byte in each encoding at its bounds (a
 * field boundary inside a character is PARSE_FIXED_SPLIT, a boundary between two characters
 * reads), a field that starts inside a character, what preview is told of each line, the
 * mapping's warning naming the file, the logged text's length, the byte order mark.
 */
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openOrderFile, type FileItem } from '../../src/input/order-file.js';
import type { OrderColumn } from '../../src/input/order-record.js';
import { splitFixedText } from '../../src/input/profile/fixed-reader.js';
import { parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';
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
/** The 16 bytes after a 4-byte key. */
const REST = '00720260105 0100';

interface Read {
  items: FileItem[];
  fields: Array<[number, Record<OrderColumn, string | null>]>;
  warnings: string[];
  path: string;
  bytesRead: number;
  header: unknown;
}

async function read(content: string | Buffer, profile: LoadProfile, observe = true): Promise<Read> {
  const path = writeTestFile(content);
  const fields: Array<[number, Record<OrderColumn, string | null>]> = [];
  const warnings: string[] = [];
  const file = await openOrderFile(path, {
    encoding: 'utf-8',
    delimiter: ',',
    profile,
    onWarning: (m) => warnings.push(m),
    ...(observe ? { observe: { passedOver: () => undefined, fieldsRead: (lineNo, raw) => fields.push([lineNo, raw]) } } : {}),
  });
  const items: FileItem[] = [];
  try {
    for await (const item of file.items) items.push(item);
  } finally {
    file.close();
  }
  return { items, fields, warnings, path, bytesRead: file.bytesRead(), header: file.header };
}

/** The first item as [kind, key or code, message]. */
const first = (r: Read): [string, string, string?] => {
  const i = r.items[0];
  if (i === undefined) return ['none', ''];
  return i.kind === 'record' ? ['record', i.fields.source_key] : ['reject', i.code, i.message];
};

/** A line whose 4-byte key field is `key` (bytes), then the rest. */
const keyed = (key: number[]): Buffer => Buffer.concat([Buffer.from(key), Buffer.from(`${REST}\n`)]);

describe('the width of a character from its first byte, at the bounds of each encoding', () => {
  it('UTF-8: a two-, three- and four-byte character cut at the key’s end by one byte', async () => {
    // the character at byte 3 of the key would end past it: cut
    expect(first(await read(keyed([0x31, 0x32, 0x33, 0xc3]), profileOf()))).toEqual([
      'reject',
      'PARSE_FIXED_SPLIT',
      'columns.source_key at 1–4 cuts a multi-byte character between bytes 4 and 5',
    ]);
    // U+0800 (E0 A0 80) from byte 2: three bytes, the key ends after its second
    const three = Buffer.concat([Buffer.from([0x31, 0x32, 0xe0, 0xa0, 0x80]), Buffer.from(`${REST.slice(1)}\n`)]);
    expect(first(await read(three, profileOf()))[1]).toBe('PARSE_FIXED_SPLIT');
    // U+10000 (F0 90 80 80) from byte 1: four bytes, the key ends after its third
    const four = Buffer.concat([Buffer.from([0x31, 0xf0, 0x90, 0x80, 0x80]), Buffer.from(`${REST.slice(1)}\n`)]);
    expect(first(await read(four, profileOf()))[1]).toBe('PARSE_FIXED_SPLIT');
    // U+07FF (DF BF) and U+FFFF's neighbour U+FFFD (EF BF BD) that end with the key: read
    expect(first(await read(keyed([0x31, 0x32, 0xdf, 0xbf]), profileOf()))).toEqual(['record', '12\u07ff']);
    expect(first(await read(keyed([0x31, 0xef, 0xbf, 0xbc]), profileOf()))).toEqual(['record', '1\ufffc']);
    // C0: a two-byte lead (an overlong form): cut, not read
    expect(first(await read(keyed([0x31, 0x32, 0x33, 0xc0]), profileOf()))[1]).toBe('PARSE_FIXED_SPLIT');
    // BF: a continuation byte, one byte wide: the line is not UTF-8
    expect(first(await read(keyed([0x31, 0x32, 0x33, 0xbf]), profileOf()))[1]).toBe('PARSE_ENCODING');
  });

  it('Shift_JIS: the lead bytes 81–9F and E0–FC take two bytes, the bytes around them one', async () => {
    const sjis = profileOf('encoding: shift_jis\n');
    for (const lead of [0x81, 0x9f, 0xe0, 0xfc]) {
      // a lead byte as the key's last byte: its character is cut
      const out = first(await read(keyed([0x31, 0x32, 0x33, lead]), sjis));
      expect(out, lead.toString(16)).toEqual([
        'reject',
        'PARSE_FIXED_SPLIT',
        'columns.source_key at 1–4 cuts a multi-byte character between bytes 4 and 5',
      ]);
    }
    // half-width katakana A1 and DF: one byte each
    expect(first(await read(keyed([0x31, 0x32, 0xa1, 0xdf]), sjis))).toEqual(['record', '12｡ﾟ']);
    // 80 and A0 are no character: one byte, an encoding error, not a cut
    for (const single of [0x80, 0xa0]) {
      const out = first(await read(keyed([0x31, 0x32, 0x33, single]), sjis));
      expect(out, single.toString(16)).toEqual([
        'reject',
        'PARSE_ENCODING',
        'the line is not valid Shift_JIS: it holds bytes that encoding does not have',
      ]);
    }
    // 亜 (88 9F) and 漾 (E0 40) whole in the key
    expect(first(await read(keyed([0x88, 0x9f, 0xe0, 0x40]), sjis))).toEqual(['record', '亜漾']);
  });

  it('EUC-JP: 8F starts three bytes, 8E and A1–FE two, others one', async () => {
    const euc = profileOf('encoding: euc-jp\n');
    // 8E B1 (half-width ｱ) and B0 A1 (亜): two bytes each, whole
    expect(first(await read(keyed([0x8e, 0xb1, 0xb0, 0xa1]), euc))).toEqual(['record', 'ｱ亜']);
    // 8F B0 A1 (JIS X 0212 丂) from byte 1: whole in the key
    expect(first(await read(keyed([0x31, 0x8f, 0xb0, 0xa1]), euc))).toEqual(['record', '1丂']);
    // from byte 2: its third byte is past the key
    const cut3 = Buffer.concat([Buffer.from([0x31, 0x32, 0x8f, 0xb0, 0xa1]), Buffer.from(`${REST.slice(1)}\n`)]);
    expect(first(await read(cut3, euc))[1]).toBe('PARSE_FIXED_SPLIT');
    for (const lead of [0x8e, 0xa1, 0xfe]) {
      const out = first(await read(keyed([0x31, 0x32, 0x33, lead]), euc));
      expect(out[1], lead.toString(16)).toBe('PARSE_FIXED_SPLIT');
    }
    // A0 and FF: one byte (not EUC-JP: an encoding error, not a cut)
    for (const single of [0xa0, 0xff]) {
      const out = first(await read(keyed([0x31, 0x32, 0x33, single]), euc));
      expect(out, single.toString(16)).toEqual([
        'reject',
        'PARSE_ENCODING',
        'the line is not valid EUC-JP: it holds bytes that encoding does not have',
      ]);
    }
  });

  it('windows-1252: every byte one character, no byte an encoding error', async () => {
    const latin = profileOf('encoding: windows-1252\n');
    // (not 80–9F: Node 20.18.3 and later decode them as Latin-1, nodejs/node#60888)
    expect(first(await read(keyed([0xe9, 0x41, 0xfc, 0xff]), latin))).toEqual(['record', 'éAüÿ']);
  });

  it('a field that starts inside a character (a gap before it) is cut at its start', async () => {
    // key 1–3, customer 5–7: byte 4 is read by no field
    const gap = profileOf('', BASE.replace('[1, 4]', '[1, 3]'));
    const line = Buffer.concat([Buffer.from('K01'), Buffer.from('é', 'utf8'), Buffer.from(`${REST.slice(1)}\n`)]);
    expect(first(await read(line, gap))).toEqual([
      'reject',
      'PARSE_FIXED_SPLIT',
      'columns.customer_id at 5–7 cuts a multi-byte character between bytes 4 and 5',
    ]);
    // the character whole in the gap: read
    const whole = Buffer.concat([Buffer.from('K0'), Buffer.from('é', 'utf8'), Buffer.from(`${REST}\n`)]);
    expect(first(await read(whole, profileOf('', BASE.replace('[1, 4]', '[1, 2]'))))).toEqual(['record', 'K0']);
  });
});

describe('what preview is told, and the file as a whole', () => {
  it('each data line’s fields as found before the mapping, null for a const; nothing for a rejected line', async () => {
    const r = await read(`K001 07 20260105 0100\nK002\nK003${REST}\n`, profileOf());
    expect(r.items.map((i) => [i.kind, i.lineNo])).toEqual([
      ['record', 1],
      ['reject', 2],
      ['record', 3],
    ]);
    expect(r.fields).toEqual([
      [1, { source_key: 'K001', customer_id: ' 07', order_date: ' 2026010', amount: '5 010', currency: null }],
      [3, { source_key: 'K003', customer_id: '007', order_date: '20260105', amount: ' 0100', currency: null }],
    ]);
  });

  it('a date mask that reads none of the lines is said once at the end, naming the file', async () => {
    const r = await read(`K001007x0260105 0100\nK002007x0260105 0100\n`, profileOf());
    expect(r.items.map((i) => i.kind === 'record' && i.problem?.code)).toEqual(['PARSE_ORDER_DATE', 'PARSE_ORDER_DATE']);
    expect(r.warnings).toEqual([
      `${r.path}: profile p: columns.order_date: no value of the first 2 line(s) fits date: YYYYMMDD (at 8–15; such as "x0260105"): each line is rejected`,
    ]);
    expect((await read(`K001${REST}\n`, profileOf())).warnings).toEqual([]);
  });

  it('a record’s logged text: whole up to 4000 characters, cut with a mark past that; the JSON of a record', async () => {
    const at4000 = `K001${REST}${'x'.repeat(4000 - 20)}`;
    const at4001 = `K002${REST}${'x'.repeat(4001 - 20)}`;
    const r = await read(`${at4000}\n${at4001}\n`, profileOf());
    expect(r.items.map((i) => i.raw)).toEqual([at4000, `${at4001.slice(0, 4000)}…`]);
    const record = r.items[0];
    expect(JSON.parse(JSON.stringify(record))).toEqual({
      kind: 'record',
      lineNo: 1,
      raw: at4000,
      fields: { source_key: 'K001', customer_id: '007', order_date: '2026-01-05', amount: '0100', currency: 'JPY' },
      endByte: 4001,
      endLine: 1,
    });
  });

  it('the header of a fixed-width file is empty; the bytes read are the file’s', async () => {
    const r = await read(`K001${REST}\nK002${REST}\n`, profileOf(), false);
    expect(r.header).toEqual({ names: [], errorExport: false, positions: new Map(), extraColumns: [], columnCount: 0 });
    expect(r.bytesRead).toBe(statSync(r.path).size);
    expect(r.items).toHaveLength(2);
  });

  it('a byte order mark alone is an empty file; the bytes of a BOM’s start are text of the line', async () => {
    expect((await read(Buffer.from([0xef, 0xbb, 0xbf]), profileOf())).items).toEqual([]);
    const latin = profileOf('encoding: windows-1252\n');
    for (const start of [
      [0xef, 0xbb, 0x41, 0x42],
      [0xef, 0x41, 0xbf, 0x42],
      [0x41, 0xbb, 0xbf, 0x42],
    ]) {
      const out = await read(keyed(start), latin);
      expect(first(out), start.join(' ')).toEqual(['record', Buffer.from(start).toString('latin1')]);
    }
  });

  it('a byte order mark where a resumed read starts is not the file’s: the logged text has none', async () => {
    const content = `K001${REST}\n\ufeffK02${REST}\n`;
    const path = writeTestFile(content);
    const file = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile: profileOf(), resumeAt: { byte: 21, line: 1 } });
    const items: FileItem[] = [];
    for await (const item of file.items) items.push(item);
    file.close();
    expect(items.map((i) => [i.lineNo, i.raw])).toEqual([[2, `K02${REST}`]]);
  });
});

describe('splitFixedText: the width of a character of an exported line', () => {
  it('Shift_JIS: half-width katakana U+FF61–U+FF9F one byte, the characters around them two', () => {
    const profile = profileOf();
    // four bytes of key: ｡ and ﾟ one byte each, then two ASCII
    expect(splitFixedText(`｡ﾟK1${REST}`, profile, 'shift_jis').source_key).toBe('｡ﾟK1');
    // ｠ (U+FF60) and ￠ (U+FFE0) are two bytes: two of them fill the key
    expect(splitFixedText(`｠￠${REST}`, profile, 'shift_jis').source_key).toBe('｠￠');
    expect(splitFixedText(`｠K01${REST.slice(1)}`, profile, 'shift_jis').source_key).toBe('｠K0');
  });

  it('EUC-JP: every character past ASCII two bytes, half-width katakana too', () => {
    expect(splitFixedText(`ｱK0${REST}`, profileOf(), 'euc-jp').source_key).toBe('ｱK0');
    expect(splitFixedText(`K0é${REST}`, profileOf(), 'euc-jp').source_key).toBe('K0é');
  });

  it('a character that ends past a field is in neither field', () => {
    // 注 takes bytes 4–5 in Shift_JIS: neither the key (1–4) nor the customer (5–7) has it whole
    const out = splitFixedText(`K01注07${REST.slice(3)}`, profileOf(), 'shift_jis');
    expect(out.source_key).toBe('K01');
    expect(out.customer_id).toBe('07');
  });
});
