/**
 * More of the fixed-width reader (src/input/profile/fixed-reader.ts) beside fixed-reader.test.ts
 * and fixed-reader-edges.test.ts, without a database: where a line ends (two line feeds, a line
 * of exactly the longest record read, a character cut by the line's end), the bytes of a byte
 * order mark anywhere but at the file's start, a comment compared as text in Shift_JIS, a `when`
 * field of several characters or past the line's end, a damaged gzip file's last line, and the
 * errors of a read (the OS code; a stop asked for by the observer passes through unchanged).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { RunAbortedError } from '../../src/errors.js';
import { openOrderFile, type FileItem, type PassedOverReason } from '../../src/input/order-file.js';
import type { OrderColumn } from '../../src/input/order-record.js';
import { openFixedFile, splitFixedText } from '../../src/input/profile/fixed-reader.js';
import { parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';
import { FIXED_RECORD_LIMIT } from '../../src/input/profile/schema.js';
import { tempDir, writeTestFile } from '../support/files.js';

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
const profileOf = (extra = ''): LoadProfile => parseProfileText(`${BASE}${extra}`, 'p.yaml', 'p');
/** The 16 bytes after a 4-byte key. */
const REST = '00720260105 0100';

interface Read {
  items: FileItem[];
  /** Each item as [kind, line, key or code]. */
  rows: Array<[string, number, string]>;
  fields: Array<[number, Record<OrderColumn, string | null>]>;
  passed: Array<[number, PassedOverReason, string]>;
  discarded: number;
}

async function read(content: string | Buffer, profile: LoadProfile): Promise<Read> {
  const path = writeTestFile(content);
  const fields: Read['fields'] = [];
  const passed: Read['passed'] = [];
  const file = await openOrderFile(path, {
    encoding: 'utf-8',
    delimiter: ',',
    profile,
    observe: { passedOver: (l) => passed.push([l.lineNo, l.reason, l.raw]), fieldsRead: (lineNo, raw) => fields.push([lineNo, raw]) },
  });
  const items: FileItem[] = [];
  try {
    for await (const item of file.items) items.push(item);
  } finally {
    file.close();
  }
  const rows = items.map((i): [string, number, string] => [i.kind, i.lineNo, i.kind === 'record' ? i.fields.source_key : i.code]);
  return { items, rows, fields, passed, discarded: file.discarded() };
}

const rejection = (item: FileItem | undefined): [string, string] | null => (item?.kind === 'reject' ? [item.code, item.message] : null);

describe('where a line ends', () => {
  it('two line feeds are a blank line between two lines: it counts as a line, and is no record', async () => {
    const r = await read(`K001${REST}\n\nK003${REST}\n\n\nK006${REST}`, profileOf());
    expect(r.rows).toEqual([
      ['record', 1, 'K001'],
      ['record', 3, 'K003'],
      ['record', 6, 'K006'],
    ]);
    expect(r.items.map((i) => i.endByte)).toEqual([21, 43, 65]);
  });

  it('a line of exactly the longest record read is read; one byte more is refused', async () => {
    const exact = `K002${REST}${'x'.repeat(FIXED_RECORD_LIMIT - 20)}`;
    expect(Buffer.byteLength(exact)).toBe(FIXED_RECORD_LIMIT);
    const ok = await read(`K001${REST}\n${exact}`, profileOf());
    expect(ok.rows).toEqual([
      ['record', 1, 'K001'],
      ['record', 2, 'K002'],
    ]);
    expect(ok.items[1]?.raw).toBe(`${exact.slice(0, 4000)}…`);
    const over = await read(`K001${REST}\n${exact}x`, profileOf());
    expect(over.rows).toEqual([
      ['record', 1, 'K001'],
      ['reject', 2, 'CSV_MAX_RECORD_SIZE'],
    ]);
  });

  it('a character cut by the end of the line (not by a field) makes the line not UTF-8, not a cut field', async () => {
    // the amount (16–20) ends with the line; its last byte starts a two-byte character
    const line = Buffer.concat([Buffer.from(`K001${REST.slice(0, 15)}`), Buffer.from([0xc3])]);
    expect(line.length).toBe(20);
    for (const content of [line, Buffer.concat([line, Buffer.from('\n')])]) {
      const r = await read(content, profileOf());
      expect(rejection(r.items[0])).toEqual(['PARSE_ENCODING', 'the line is not valid UTF-8 (set encoding: in the profile)']);
    }
  });

  it('EUC-JP: 8F as the key’s last byte starts a three-byte character that the key cuts', async () => {
    const line = Buffer.concat([Buffer.from([0x31, 0x32, 0x33, 0x8f, 0xb0, 0xa1]), Buffer.from(`${REST.slice(2)}\n`)]);
    const r = await read(line, profileOf('encoding: euc-jp\n'));
    expect(rejection(r.items[0])).toEqual([
      'PARSE_FIXED_SPLIT',
      'columns.source_key at 1–4 cuts a multi-byte character between bytes 4 and 5',
    ]);
  });

  it('Shift_JIS: the bytes FD to FF are one byte each (no character), an encoding error, not a cut', async () => {
    const sjis = profileOf('encoding: shift_jis\n');
    for (const single of [0xfd, 0xfe, 0xff]) {
      const line = Buffer.concat([Buffer.from([0x31, 0x32, 0x33, single]), Buffer.from(`${REST}\n`)]);
      const r = await read(line, sjis);
      expect(rejection(r.items[0]), single.toString(16)).toEqual([
        'PARSE_ENCODING',
        'the line is not valid Shift_JIS: it holds bytes that encoding does not have',
      ]);
    }
  });
});

describe('the bytes of a byte order mark past the file’s start are text', () => {
  it('inside a line: kept in the field that holds them and in the logged text', async () => {
    // customer_id (5–7) is exactly EF BB BF; another one after the last field
    const text = `K001\uFEFF20260105 0100x\uFEFFy`;
    const r = await read(`${text}\n`, profileOf());
    expect(r.fields[0]?.[1].customer_id).toBe('\uFEFF');
    expect(r.items[0]?.raw).toBe(text);
  });

  it('at the start of a line, wherever the file’s reads are cut (a line ending at 16 KiB, 32 KiB … 1 MiB)', async () => {
    const latin = profileOf('encoding: windows-1252\n');
    const bomLine = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`K0${REST}\n`)]);
    const parts: Buffer[] = [];
    let size = 0;
    for (let boundary = 16 * 1024; boundary <= 1024 * 1024; boundary *= 2) {
      // a line that ends exactly at the boundary, then a line that starts with EF BB BF
      const filler = Buffer.from(`F001${REST}${'x'.repeat(boundary - size - 21)}\n`);
      parts.push(filler, bomLine);
      size += filler.length + bomLine.length;
      expect(size - bomLine.length).toBe(boundary);
    }
    const r = await read(Buffer.concat(parts), latin);
    const keys = r.rows.map((row) => row[2]);
    expect(keys).toEqual(Array.from({ length: 7 }, () => ['F001', 'ï»¿K']).flat());
  });
});

describe('comments and when', () => {
  it('a comment is compared as text: a full-width ＃ (2 bytes in Shift_JIS, 3 in the profile’s UTF-8)', async () => {
    const sjis = profileOf('encoding: shift_jis\ncomment: "＃"\n');
    // ＃ is 81 94 in Shift_JIS; the first 3 bytes of the line read "＃ "
    const content = Buffer.concat([Buffer.from([0x81, 0x94]), Buffer.from(` a note\nK001${REST}\n`), Buffer.from([0x81, 0x94, 0x0a])]);
    const r = await read(content, sjis);
    expect(r.rows).toEqual([['record', 2, 'K001']]);
    expect(r.passed).toEqual([
      [1, 'comment', '＃ a note'],
      [3, 'comment', '＃'],
    ]);
    expect(r.discarded).toBe(2);
  });

  it('units: chars: a when field of two characters is compared whole', async () => {
    const chars = profileOf('units: chars\nwhen: { at: [21, 2], equals: "DÉ" }\n');
    const r = await read(`K001${REST}DÉ\nK002${REST}DE\nK003${REST}DÉ\n`, chars);
    expect(r.rows).toEqual([
      ['record', 1, 'K001'],
      ['record', 3, 'K003'],
    ]);
    expect(r.passed).toEqual([[2, 'when', `K002${REST}DE`]]);
  });

  it('a when field that the line ends inside of: the line is refused, naming the when field', async () => {
    const r = await read(`K001${REST}D\n`, profileOf('when: { at: [21, 2], not_in: ["XX"] }\n'));
    expect(rejection(r.items[0])).toEqual(['PARSE_FIXED_SHORT', 'the line is 21 bytes: when at 21–22 reaches past its end']);
  });
});

describe('the end of a read', () => {
  it('a damaged gzip file: the rejection that stops the file is on the line after the last one read', async () => {
    const content = Array.from({ length: 3000 }, (_, i) => `K${String(i).padStart(3, '0').slice(-3)}${REST}`).join('\n');
    const r = await read(gzipSync(content).subarray(0, -8), profileOf());
    const last = r.items.at(-1);
    const records = r.items.length - 1;
    expect(records).toBeGreaterThan(0);
    expect(last?.kind === 'reject' && [last.code, last.lineNo, last.endLine, last.stopsFile]).toEqual([
      'GZIP_TRUNCATED',
      records + 1,
      records + 1,
      true,
    ]);
  });

  it('a file that cannot be read: the error names the OS code', async () => {
    const dir = join(tempDir(), 'not-a-file');
    mkdirSync(dir);
    const file = openFixedFile(dir, 0, { encoding: 'utf-8', delimiter: ',' }, profileOf());
    try {
      await expect(file.items[Symbol.asyncIterator]().next()).rejects.toThrow(/^cannot read the file: EISDIR$/);
    } finally {
      file.close();
    }
  });

  it('a stop asked for while the lines are read (RunAbortedError) passes through as it is', async () => {
    const stop = new RunAbortedError('interrupted by the observer', 'interrupted');
    const file = await openOrderFile(writeTestFile(`K001${REST}\nK002${REST}\n`), {
      encoding: 'utf-8',
      delimiter: ',',
      profile: profileOf(),
      observe: {
        passedOver: () => undefined,
        fieldsRead: () => {
          throw stop;
        },
      },
    });
    try {
      await expect(file.items[Symbol.asyncIterator]().next()).rejects.toBe(stop);
    } finally {
      file.close();
    }
  });
});

describe('splitFixedText: U+0080, the first character past ASCII', () => {
  it('takes two bytes in UTF-8 and in EUC-JP', () => {
    for (const encoding of ['utf-8', 'euc-jp'] as const) {
      const out = splitFixedText(`\u0080K01${REST.slice(1)}`, profileOf(), encoding);
      expect([out.source_key, out.customer_id], encoding).toEqual(['\u0080K0', '107']);
    }
  });
});
