/**
 * The delimited reader's small helpers, each called directly (src/input/formats/delimited-bytes.ts,
 * csv-api.ts, raw-span.ts): line counts of a record's bytes, blank bytes a read can drop, a line's
 * fields, csv-parse's errors in words, the raw text kept for the error log. The reader's tests
 * reach them through whole files, where a wrong count or cut often changes nothing they look at;
 * written against the survivors of StrykerJS's `delimited` group (docs/mutation.md).
 */
import { describe, expect, it } from 'vitest';
import { openOrderFile, type FileItem } from '../../src/input/order-file.js';
import { writeTestFile } from '../support/files.js';
import { csvApi, csvErrorSummary, LINE_LOCAL_CSV_ERRORS } from '../../src/input/formats/csv-api.js';
import { asciiByte, countLines, hasBom, isBlankByte, leadingBlankBytes, lineFields } from '../../src/input/formats/delimited-bytes.js';
import { anyIncludes, cleanRaw, RAW_LIMIT, rawText, ReadRecord, reject } from '../../src/input/formats/raw-span.js';

const bytes = (text: string): Buffer => Buffer.from(text, 'latin1');
const lines = (text: string, before = 0) => {
  const b = bytes(text);
  return countLines(b, 0, b.length, before);
};

describe('countLines: the first and last line of a record from its bytes', () => {
  it('a record alone, with and without its line end, after a given line', () => {
    expect(lines('a,b')).toEqual({ startLine: 1, endLine: 1 });
    expect(lines('a,b\n')).toEqual({ startLine: 1, endLine: 1 });
    expect(lines('a,b\r\n', 4)).toEqual({ startLine: 5, endLine: 5 });
    expect(lines('a,b\r', 4)).toEqual({ startLine: 5, endLine: 5 });
  });

  it('blank lines before it of each kind (LF, CRLF, a lone CR) move its first line', () => {
    expect(lines('\n\na\n')).toEqual({ startLine: 3, endLine: 3 });
    expect(lines('\r\n\r\na\r\n')).toEqual({ startLine: 3, endLine: 3 });
    expect(lines('\r\ra\n')).toEqual({ startLine: 3, endLine: 3 });
    expect(lines('\r\n\n\ra', 10)).toEqual({ startLine: 14, endLine: 14 });
  });

  it('line breaks inside it (a quoted field) move its last line, its own line end does not', () => {
    expect(lines('"a\nb",c\n')).toEqual({ startLine: 1, endLine: 2 });
    expect(lines('"a\r\nb",c\r\n')).toEqual({ startLine: 1, endLine: 2 });
    expect(lines('"a\rb\rc",d\r')).toEqual({ startLine: 1, endLine: 3 });
    expect(lines('"a\n\n",c')).toEqual({ startLine: 1, endLine: 3 });
  });

  it('a BOM before the header is no line, and only at the record start', () => {
    expect(lines('\xEF\xBB\xBF\na\n')).toEqual({ startLine: 2, endLine: 2 });
    expect(lines('\xEF\xBB\n')).toEqual({ startLine: 1, endLine: 1 });
    expect(lines('\xEF\n')).toEqual({ startLine: 1, endLine: 1 });
  });

  it('counts only the bytes from start to end', () => {
    const b = bytes('x\n\nab\ncd\nzz\n');
    expect(countLines(b, 2, 9, 1)).toEqual({ startLine: 3, endLine: 4 });
    expect(countLines(b, 3, 6, 2)).toEqual({ startLine: 3, endLine: 3 });
    // blank bytes up to `end`, more after it: those after it are not counted
    expect(countLines(bytes('\n\n\n\n'), 0, 2, 0)).toEqual({ startLine: 3, endLine: 3 });
  });
});

describe('leadingBlankBytes: the blank bytes a read can drop', () => {
  it('LF, CRLF and a lone CR are one line each; a CR last is left for its LF', () => {
    expect(leadingBlankBytes(bytes('\n\r\n\ra'), 0)).toEqual({ length: 4, lines: 3 });
    expect(leadingBlankBytes(bytes('\n\r'), 0)).toEqual({ length: 1, lines: 1 });
    expect(leadingBlankBytes(bytes('\r'), 0)).toEqual({ length: 0, lines: 0 });
    expect(leadingBlankBytes(bytes('\r\r'), 0)).toEqual({ length: 1, lines: 1 });
    expect(leadingBlankBytes(bytes('\n\n'), 0)).toEqual({ length: 2, lines: 2 });
  });

  it('from a given offset, and none before a data byte', () => {
    expect(leadingBlankBytes(bytes('ab\n\nc'), 2)).toEqual({ length: 2, lines: 2 });
    expect(leadingBlankBytes(bytes('ab\n'), 0)).toEqual({ length: 0, lines: 0 });
    expect(leadingBlankBytes(bytes(''), 0)).toEqual({ length: 0, lines: 0 });
  });

  it('isBlankByte: CR and LF only', () => {
    expect([0x0a, 0x0d, 0x20, 0x09, 0x00, undefined].map(isBlankByte)).toEqual([true, true, false, false, false, false]);
  });
});

describe('lineFields: a line cut at its delimiters', () => {
  it('short and long fields, empty ones first, between and last, ASCII sliced', () => {
    const text = ',abc,,0123456789abcdef,';
    const b = bytes(`xx${text}yy`);
    const cuts = [0, 4, 5, 22].map((i) => i + 2);
    const expected = ['', 'abc', '', '0123456789abcdef', ''];
    expect(lineFields(b, 2, 2 + text.length, cuts, true)).toEqual(expected);
    expect(lineFields(b, 2, 2 + text.length, cuts, false)).toEqual(expected);
  });

  it('fields of 12, 13 and 14 characters read whole from an ASCII line', () => {
    const fields = ['123456789012', '1234567890123', '12345678901234'];
    const b = bytes(fields.join(';'));
    expect(lineFields(b, 0, b.length, [12, 26], true)).toEqual(fields);
  });

  it('a line that is not ASCII is decoded as UTF-8, field by field', () => {
    const b = Buffer.from('é,日本語の長いフィールドです,x', 'utf8');
    const first = b.indexOf(0x2c);
    const second = b.indexOf(0x2c, first + 1);
    expect(lineFields(b, 0, b.length, [first, second], false)).toEqual(['é', '日本語の長いフィールドです', 'x']);
  });

  it('no delimiter: the line is one field', () => {
    expect(lineFields(bytes('abc'), 0, 3, [], true)).toEqual(['abc']);
    expect(lineFields(bytes(''), 0, 0, [], true)).toEqual(['']);
  });
});

describe('asciiByte and hasBom', () => {
  it('a one-character ASCII text is its byte; anything else -1', () => {
    expect(asciiByte(',')).toBe(0x2c);
    expect(asciiByte('\x7f')).toBe(0x7f);
    expect(asciiByte('\x80')).toBe(-1);
    expect(asciiByte('、')).toBe(-1);
    expect(asciiByte(',,')).toBe(-1);
    expect(asciiByte('')).toBe(-1);
  });

  it('a BOM is its three bytes, at the start only', () => {
    expect(hasBom(Buffer.from([0xef, 0xbb, 0xbf, 0x41]))).toBe(true);
    expect(hasBom(Buffer.from([0xef, 0xbb, 0xbe]))).toBe(false);
    expect(hasBom(Buffer.from([0xef, 0xba, 0xbf]))).toBe(false);
    expect(hasBom(Buffer.from([0xee, 0xbb, 0xbf]))).toBe(false);
    expect(hasBom(Buffer.from([0x41, 0xef, 0xbb, 0xbf]))).toBe(false);
  });
});

describe('csv-parse as the reader drives it', () => {
  it('its errors in words, by code; another error by its message on one line, cut at 200 characters', () => {
    const error = (code: string | undefined, message = 'm'): Error & { code?: string } => Object.assign(new Error(message), { code });
    expect(csvErrorSummary(error('CSV_QUOTE_NOT_CLOSED'))).toBe('a quoted field is not closed (unterminated quote)');
    expect(csvErrorSummary(error('CSV_INVALID_CLOSING_QUOTE'))).toBe('a closing quote is followed by other characters');
    expect(csvErrorSummary(error('INVALID_OPENING_QUOTE'))).toBe('a quote appears inside an unquoted field');
    expect(csvErrorSummary(error('CSV_MAX_RECORD_SIZE'))).toBe('a record is larger than the maximum record size');
    expect(csvErrorSummary(error('CSV_OTHER', 'one\n  two\t\tthree'))).toBe('one two three');
    expect(csvErrorSummary(error(undefined, 'x'.repeat(250)))).toBe('x'.repeat(200));
  });

  it('the errors that reject one line and read on', () => {
    expect([...LINE_LOCAL_CSV_ERRORS].sort()).toEqual(['CSV_INVALID_CLOSING_QUOTE', 'CSV_MAX_RECORD_SIZE', 'INVALID_OPENING_QUOTE']);
  });

  it('the parser API parses a buffer and counts its bytes and lines', () => {
    const api = csvApi({ delimiter: ',' });
    const records: string[][] = [];
    const error = api.parse(
      Buffer.from('a,b\nc,d\n'),
      true,
      (r) => records.push(r),
      () => undefined,
    );
    expect(error).toBeUndefined();
    expect(records).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(api.info.bytes).toBe(8);
    expect(api.info.lines).toBe(3);
  });
});

describe('the raw text kept of a record', () => {
  it('cleanRaw: blank lines and a BOM before it and its line end dropped, NUL shown, cut at RAW_LIMIT', () => {
    expect(cleanRaw('\uFEFF\r\n\na,b\r\n')).toBe('a,b');
    expect(cleanRaw('a\nb\n\n')).toBe('a\nb');
    expect(cleanRaw('a\u0000b\u0000')).toBe('a\u2400b\u2400');
    expect(cleanRaw('x'.repeat(RAW_LIMIT))).toBe('x'.repeat(RAW_LIMIT));
    expect(cleanRaw('x'.repeat(RAW_LIMIT + 1))).toBe(`${'x'.repeat(RAW_LIMIT)}…`);
    expect(RAW_LIMIT).toBe(4000);
  });

  it('rawText decodes only its span; a ReadRecord and its rawLater give the same text', () => {
    const window = Buffer.from('zz\n\n1,é\r\nyy', 'utf8');
    const span = { window, start: 2, end: window.indexOf('yy') };
    expect(rawText(span)).toBe('1,é');
    const fields = { source_key: '1', customer_id: '', order_date: '', amount: '', currency: '' };
    const record = new ReadRecord(4, fields, 11, 4, span);
    expect(record.raw).toBe('1,é');
    expect(record.rawLater().raw).toBe('1,é');
    expect(record.kind).toBe('record');
    expect(JSON.parse(JSON.stringify(record))).toEqual({ kind: 'record', lineNo: 4, raw: '1,é', fields, endByte: 11, endLine: 4 });
  });

  it('reject: a line rejected with its raw text, code and message, not stopping the file', () => {
    const window = Buffer.from('a,b\n');
    expect(reject(3, { window, start: 0, end: 4 }, 'CODE', 'why', 40, 3)).toEqual({
      kind: 'reject',
      lineNo: 3,
      raw: 'a,b',
      code: 'CODE',
      message: 'why',
      endByte: 40,
      endLine: 3,
      stopsFile: false,
    });
  });

  it('anyIncludes: whether some field holds the text', () => {
    expect(anyIncludes(['ab', 'cd'], 'c')).toBe(true);
    expect(anyIncludes(['ab', 'cd'], 'x')).toBe(false);
    expect(anyIncludes([], 'x')).toBe(false);
  });
});

describe('a read resumed mid-file', () => {
  it("reads the header again with the file's own delimiter, then the records after the resume point", async () => {
    const path = writeTestFile(
      'source_key;customer_id;order_date;amount;currency\nA;1;2026-01-01;1;JPY\nB;2;2026-01-02;2;JPY\n',
      'semicolons.csv',
    );
    const items = async (resumeAt?: { byte: number; line: number }): Promise<FileItem[]> => {
      const file = await openOrderFile(path, { encoding: 'utf-8', delimiter: ';', resumeAt });
      const read: FileItem[] = [];
      for await (const item of file.items) read.push(item);
      file.close();
      expect(file.header.names).toEqual(['source_key', 'customer_id', 'order_date', 'amount', 'currency']);
      return read;
    };
    const whole = await items();
    const first = whole[0];
    if (first?.kind !== 'record') throw new Error('no first record');
    const rest = await items({ byte: first.endByte ?? 0, line: first.endLine });
    expect(rest.map((i) => [i.lineNo, i.kind === 'record' ? i.fields.source_key : null])).toEqual([[3, 'B']]);
  });
});
