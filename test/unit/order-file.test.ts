import { describe, expect, it } from 'vitest';
import { openOrderFile, type FileItem } from '../../src/input/order-file.js';
import { UserError } from '../../src/errors.js';
import { HEADER, writeTestFile } from '../support/files.js';

const options = { encoding: 'utf-8' as const, delimiter: ',' };

async function readAll(path: string): Promise<FileItem[]> {
  const file = await openOrderFile(path, options);
  const items: FileItem[] = [];
  for await (const item of file.items) items.push(item);
  return items;
}

describe('openOrderFile', () => {
  it('maps columns by header name in any order, ignoring extra columns', async () => {
    const path = writeTestFile('currency,note,amount,source_key,order_date,customer_id\nJPY,hello,10,K-1,2026-01-01,5\n');
    const file = await openOrderFile(path, options);
    expect(file.header.extraColumns).toEqual(['note']);
    const items: FileItem[] = [];
    for await (const i of file.items) items.push(i);
    expect(items).toEqual([
      expect.objectContaining({
        kind: 'record',
        lineNo: 2,
        fields: { currency: 'JPY', amount: '10', source_key: 'K-1', order_date: '2026-01-01', customer_id: '5' },
      }),
    ]);
  });

  it('strips a UTF-8 BOM and reads CRLF and mixed line endings with the right line numbers', async () => {
    const path = writeTestFile(`\ufeff${HEADER}\r\nA,1,2026-01-01,1,JPY\r\n\r\nB,2,2026-01-01,2,JPY\nC,3,2026-01-01,3,JPY`);
    const items = await readAll(path);
    expect(items.map((i) => [i.kind, i.lineNo, i.kind === 'record' ? i.fields.source_key : null])).toEqual([
      ['record', 2, 'A'],
      ['record', 4, 'B'],
      ['record', 5, 'C'],
    ]);
    expect(items[0]?.raw).toBe('A,1,2026-01-01,1,JPY');
  });

  it('counts the start line of a record with a quoted newline', async () => {
    const items = await readAll(writeTestFile(`${HEADER}\n"A\nB",1,2026-01-01,1,JPY\nC,3,2026-01-01,3,JPY\n`));
    expect(items.map((i) => i.lineNo)).toEqual([2, 4]);
  });

  it('rejects a line with the wrong number of fields and goes on', async () => {
    const items = await readAll(writeTestFile(`${HEADER}\nA,1,2026-01-01,1,JPY,extra\nB,2,2026-01-01,2,JPY\nC,3\n`));
    expect(items.map((i) => [i.kind, i.lineNo, i.kind === 'reject' ? i.code : ''])).toEqual([
      ['reject', 2, 'PARSE_FIELD_COUNT'],
      ['record', 3, ''],
      ['reject', 4, 'PARSE_FIELD_COUNT'],
    ]);
    expect(items[0]).toMatchObject({ message: 'expected 5 fields as in the header, found 6', raw: 'A,1,2026-01-01,1,JPY,extra' });
  });

  // A record over maxRecordSize is the one CSV error that concerns one line (a stray quote is data)
  const tooLong = `B,2,2026-01-01,2,${'X'.repeat(60)}`;
  const small = { ...options, maxRecordSize: 48 }; // the header's fields hold 45

  async function readWith(path: string, opts: Parameters<typeof openOrderFile>[1]): Promise<FileItem[]> {
    const file = await openOrderFile(path, opts);
    const items: FileItem[] = [];
    for await (const item of file.items) items.push(item);
    return items;
  }

  it('a line-local CSV error on the first data line rejects that line, not the header, and the line numbers after it stay right', async () => {
    for (const eol of ['\n', '\r\n']) {
      const items = await readWith(writeTestFile(`\n${HEADER}${eol}${tooLong}${eol}C,3,2026-01-01,3,JPY${eol}`), small);
      expect(items.map((i) => [i.kind, i.lineNo, i.raw, i.kind === 'reject' ? i.code : ''])).toEqual([
        ['reject', 3, tooLong, 'CSV_MAX_RECORD_SIZE'],
        ['record', 4, 'C,3,2026-01-01,3,JPY', ''],
      ]);
    }
  });

  it('a line-local CSV error in a file with lone-CR line ends rejects that one line and reads on', async () => {
    const items = await readWith(
      writeTestFile(`${HEADER}\rA,1,2026-01-01,1,JPY\r${tooLong}\r\rC,3,2026-01-01,3,JPY\rD,4,2026-01-01,4,JPY\r`),
      small,
    );
    expect(items.map((i) => [i.kind, i.lineNo, i.raw])).toEqual([
      ['record', 2, 'A,1,2026-01-01,1,JPY'],
      ['reject', 3, tooLong],
      ['record', 5, 'C,3,2026-01-01,3,JPY'],
      ['record', 6, 'D,4,2026-01-01,4,JPY'],
    ]);
  });

  it('a quote inside an unquoted field is data, in a column loaded or not; a closing quote followed by text is kept as written', async () => {
    const path = writeTestFile(
      `${HEADER},name\nA,1,2026-01-01,1,JPY,"27"" monitor"\nB,2,2026-01-01,2,JPY,5"Display\nC"x,3,2026-01-01,3,JPY,\nD,4,2026-01-01,4"0,JPY,"x"y\n`,
    );
    const items = await readAll(path);
    expect(items.map((i) => [i.kind, i.lineNo, i.kind === 'record' ? [i.fields.source_key, i.fields.amount] : i.code])).toEqual([
      ['record', 2, ['A', '1']],
      ['record', 3, ['B', '2']],
      ['record', 4, ['C"x', '3']],
      ['record', 5, ['D', '4"0']],
    ]);
    expect(items.map((i) => i.raw)).toEqual([
      'A,1,2026-01-01,1,JPY,"27"" monitor"',
      'B,2,2026-01-01,2,JPY,5"Display',
      'C"x,3,2026-01-01,3,JPY,',
      'D,4,2026-01-01,4"0,JPY,"x"y',
    ]);
  });

  // "注文" and "ディスプレイ" in Shift_JIS
  const SJIS_ORDER = Buffer.from([0x92, 0x8d, 0x95, 0xb6]);
  const SJIS_DISPLAY = Buffer.from([0x83, 0x66, 0x83, 0x42, 0x83, 0x58, 0x83, 0x76, 0x83, 0x8c, 0x83, 0x43]);
  const sjisFile = (...parts: Array<string | Buffer>) =>
    writeTestFile(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : p))));

  it('Shift_JIS: a stray quote in an unused column is data, and the lines after it are read', async () => {
    const path = sjisFile(
      `${HEADER},name\r\n`,
      SJIS_ORDER,
      `-1,1,2026-01-01,1,JPY,5"`,
      SJIS_DISPLAY,
      `\r\nB,2,2026-01-01,2"0,JPY,x\r\nC,3,2026-01-01,3,JPY,\r\n`,
    );
    const items = await readWith(path, { ...options, encoding: 'shift_jis' });
    expect(items.map((i) => [i.kind, i.lineNo, i.kind === 'record' ? i.fields.source_key : i.code, i.raw])).toEqual([
      ['record', 2, '注文-1', '注文-1,1,2026-01-01,1,JPY,5"ディスプレイ'],
      ['record', 3, 'B', 'B,2,2026-01-01,2"0,JPY,x'],
      ['record', 4, 'C', 'C,3,2026-01-01,3,JPY,'],
    ]);
  });

  it('Shift_JIS (a decoded encoding): a line-local CSV error rejects that line with its text and the rest is read', async () => {
    for (const encoding of ['shift_jis', 'windows-1252'] as const) {
      const path = sjisFile(
        `${HEADER}\r\nA,1,2026-01-01,1,JPY\r\n\r\n`,
        SJIS_ORDER,
        `${tooLong}\r\nC,3,2026-01-01,3,JPY\r\nD,4,2026-01-01,4,JPY`,
      );
      const items = await readWith(path, { ...options, encoding, maxRecordSize: 48 });
      expect(
        items.map((i) => [i.kind, i.lineNo, i.endLine, i.kind === 'record' ? i.fields.source_key : i.code, i.endByte]),
        encoding,
      ).toEqual([
        ['record', 2, 2, 'A', null],
        ['reject', 4, 4, 'CSV_MAX_RECORD_SIZE', null],
        ['record', 5, 5, 'C', null],
        ['record', 6, 6, 'D', null],
      ]);
      expect(items[1]?.raw, encoding).toBe(`${encoding === 'shift_jis' ? '注文' : '’\u008d•¶'}${tooLong}`);
    }
  });

  it('a line-local CSV error far into a large file: the line is skipped in the stream, offsets and line numbers stay exact', async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => `K-${i},1,2026-01-01,1,JPY`);
    lines[20_000] = `K-bad,1,2026-01-01,1,${'Y'.repeat(300_000)}`; // over 256 KiB: the skip reads on across chunks
    const text = `${HEADER}\n${lines.join('\n')}\n`;
    const path = writeTestFile(text);
    const items = await readWith(path, { ...options, maxRecordSize: 1000 });
    expect(items).toHaveLength(30_000);
    const bad = items[20_000];
    expect(bad).toMatchObject({ kind: 'reject', lineNo: 20_002, endLine: 20_002, code: 'CSV_MAX_RECORD_SIZE' });
    expect(bad?.raw.startsWith('K-bad,1,2026-01-01,1,YYY')).toBe(true);
    const lineEnd = (n: number) => Buffer.byteLength(`${HEADER}\n${lines.slice(0, n - 1).join('\n')}\n`);
    expect(bad?.endByte).toBe(lineEnd(20_002));
    expect(items[20_001]).toMatchObject({ kind: 'record', lineNo: 20_003, endByte: lineEnd(20_003), fields: { source_key: 'K-20001' } });
    expect(items.at(-1)).toMatchObject({ lineNo: 30_001, endByte: Buffer.byteLength(text) });
    // resumed right after the skipped line, or right before it: the same items
    const after = await readWith(path, { ...options, maxRecordSize: 1000, resumeAt: { byte: bad?.endByte ?? 0, line: bad?.endLine ?? 0 } });
    const brief = (all: FileItem[]) => all.map((i) => [i.kind, i.lineNo, i.endLine, i.endByte, i.raw]);
    expect(brief(after)).toEqual(brief(items.slice(20_001)));
    const before = items[19_999];
    const from = await readWith(path, {
      ...options,
      maxRecordSize: 1000,
      resumeAt: { byte: before?.endByte ?? 0, line: before?.endLine ?? 0 },
    });
    expect(brief(from)).toEqual(brief(items.slice(20_000)));
  });

  it('reports an unterminated quote with the line where the broken record starts', async () => {
    const items = await readAll(writeTestFile(`${HEADER}\nA,1,2026-01-01,1,JPY\n"B,2,2026-01-01,2,JPY\nC,3,2026-01-01,3,JPY\n`));
    expect(items.map((i) => [i.kind, i.lineNo])).toEqual([
      ['record', 2],
      ['reject', 3],
    ]);
    expect(items[1]).toMatchObject({ code: 'CSV_QUOTE_NOT_CLOSED', stopsFile: true });
    expect((items[1] as { message: string }).message).toContain('unterminated quote');
  });

  it('never drops records parsed before an error, however slow the consumer', async () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `K${i},1,2026-01-01,1,JPY`);
    const file = await openOrderFile(writeTestFile(`${HEADER}\n${lines.join('\n')}\n"broken,1\n`), options);
    await new Promise((r) => setTimeout(r, 50)); // let the reader run ahead if it could
    const items: FileItem[] = [];
    for await (const i of file.items) {
      items.push(i);
      if (items.length % 500 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    expect(items.filter((i) => i.kind === 'record')).toHaveLength(2000);
    expect(items.at(-1)).toMatchObject({ kind: 'reject', lineNo: 2002, stopsFile: true });
  });

  it.each([
    ['a missing file', null, 'no such file'],
    ['an empty file', '', 'the file is empty'],
    ['a missing required column', 'source_key,customer_id,order_date,currency\n', 'missing required column amount'],
    ['a repeated column', `${HEADER},amount\n`, 'column "amount" appears twice'],
  ])('refuses %s before reading any record', async (_name, content, message) => {
    const path = content === null ? '/nonexistent/orders.csv' : writeTestFile(content);
    const error = await openOrderFile(path, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).toContain(path);
  });

  it('yields no record for a header-only file', async () => {
    expect(await readAll(writeTestFile(`${HEADER}\n`))).toEqual([]);
  });

  it('decodes Shift_JIS with --encoding shift_jis', async () => {
    const text = `${HEADER}\n注文-壱,1,2026-01-01,1,JPY\n`;
    const bytes = Buffer.from(new Uint8Array([...new TextEncoder().encode(HEADER + '\n')]));
    // "注文-壱" in Shift_JIS
    const sjisKey = Buffer.from([0x92, 0x8d, 0x95, 0xb6, 0x2d, 0x88, 0xeb]);
    const path = writeTestFile(Buffer.concat([bytes, sjisKey, Buffer.from(',1,2026-01-01,1,JPY\n')]));
    const file = await openOrderFile(path, { ...options, encoding: 'shift_jis' });
    const items: FileItem[] = [];
    for await (const i of file.items) items.push(i);
    expect(items[0]).toMatchObject({ kind: 'record', fields: { source_key: '注文-壱' } });
    expect(text).toContain('注文-壱');
    // read as UTF-8 by mistake: rejected per line, not loaded as mojibake
    const wrong = await readAll(path);
    expect(wrong[0]).toMatchObject({ kind: 'reject', code: 'PARSE_ENCODING', lineNo: 2 });
  });

  it('keeps exact byte offsets, line numbers and raw text across read chunks, multi-byte text, CRLF, blank lines and quoted newlines', async () => {
    // well over one 256 KiB read: records and 3-byte characters fall across chunk boundaries
    const lines: string[] = [HEADER];
    const endings: string[] = [];
    for (let i = 0; i < 12_000; i++) {
      const key = i % 7 === 0 ? `注文-${i}-壱弐参` : i % 11 === 0 ? `"Q-${i}\r\nnext"` : `K-${i}`;
      lines.push(`${key},${i + 1},2026-01-01,${i}.5,JPY`);
    }
    lines.splice(6000, 0, 'bad,1,2026-01-01,1,JPY,extra-注文'); // a rejected line in the middle
    lines.splice(9000, 0, ''); // a blank line
    for (let i = 0; i < lines.length; i++) endings.push(i % 3 === 0 ? '\r\n' : '\n');
    const bytes = Buffer.from(lines.map((l, i) => `${l}${endings[i] ?? ''}`).join(''), 'utf8');
    const path = writeTestFile(bytes);
    // where each physical line starts, in bytes and in line numbers
    const starts = new Map<number, number>(); // line number → byte offset of its start
    let offset = 0;
    let lineNo = 1;
    for (let i = 0; i < lines.length; i++) {
      starts.set(lineNo, offset);
      const text = `${lines[i] ?? ''}${endings[i] ?? ''}`;
      offset += Buffer.byteLength(text, 'utf8');
      lineNo += 1 + (text.slice(0, -1).match(/\r\n/g)?.length ?? 0);
    }
    const items = await readAll(path);
    expect(items).toHaveLength(12_001);
    // the record starts on its line, its end is the start of the next line, its raw text the bytes between
    const expected = items.map((item) => {
      const endByte = starts.get(item.endLine + 1) ?? bytes.length;
      const raw = bytes
        .subarray(starts.get(item.lineNo), endByte)
        .toString('utf8')
        .replace(/[\r\n]+$/, '');
      return [item.lineNo, endByte, raw];
    });
    expect(items.map((i) => [i.lineNo, i.endByte, i.raw])).toEqual(expected);
    expect(items.find((i) => i.kind === 'reject')).toMatchObject({ code: 'PARSE_FIELD_COUNT', raw: 'bad,1,2026-01-01,1,JPY,extra-注文' });
    expect(items.find((i) => i.raw.startsWith('"Q-11'))).toMatchObject({ kind: 'record', raw: '"Q-11\r\nnext",12,2026-01-01,11.5,JPY' });
    // resuming at any record's end reads the rest exactly as the whole file did
    const resumeFrom = items[8000];
    const file = await openOrderFile(path, { ...options, resumeAt: { byte: resumeFrom?.endByte ?? 0, line: resumeFrom?.endLine ?? 0 } });
    const rest: FileItem[] = [];
    for await (const i of file.items) rest.push(i);
    expect(rest.map((i) => [i.lineNo, i.endByte, i.raw])).toEqual(items.slice(8001).map((i) => [i.lineNo, i.endByte, i.raw]));
  });
});
