/**
 * The JSON Lines reader (`format: jsonl`): numbers kept as written (JSON.parse would not), paths
 * into the object, each bad line rejected on its own with its number and text, invalid UTF-8,
 * resume at a record's byte offset giving the rest of the file as an uninterrupted read, gzip,
 * and the profile refusals of what has no meaning for JSON Lines.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseJsonPath } from '../../src/input/formats/json-path.js';
import { jsonText, parseJsonText } from '../../src/input/formats/json-text.js';
import type { FileItem } from '../../src/input/order-file.js';
import { parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';
import { writeTestFile } from '../support/files.js';
import { readItems } from '../support/read-items.js';

const profileOf = (extra = ''): LoadProfile =>
  parseProfileText(
    `version: 1
format: jsonl
${extra}columns:
  source_key: { column: 'id' }
  customer_id: { column: ['customer.id', 'customer_id'] }
  order_date: { column: 'date' }
  amount: { column: 'lines[0].price' }
  currency: { column: '["cur.code"]', default: 'EUR' }
`,
    'p.yaml',
    'p',
  );

async function read(content: string | Buffer, profile = profileOf(), resumeAt?: { byte: number; line: number }): Promise<FileItem[]> {
  return readItems(writeTestFile(content, 'f.jsonl'), { encoding: 'utf-8', delimiter: ',', profile, resumeAt });
}

const summary = (items: FileItem[]) =>
  items.map((i) =>
    i.kind === 'record'
      ? [i.lineNo, i.fields.source_key, i.fields.customer_id, i.fields.amount, i.fields.currency]
      : [i.lineNo, i.code, i.raw],
  );

describe('JSON text with numbers as written', () => {
  it('keeps 0.1, 1234.50, a 20-digit number and an exponent as their source text, where JSON.parse does not', () => {
    const text = '{"a": 0.1, "b": 1234.50, "c": 12345678901234567890, "d": -1.5e+3, "e": [true, null, "x\\u00e9\\n"]}';
    expect(jsonText(parseJsonText(text))).toBe('{"a":0.1,"b":1234.50,"c":12345678901234567890,"d":-1.5e+3,"e":[true,null,"xé\\n"]}');
    expect(JSON.stringify(JSON.parse(text))).not.toContain('12345678901234567890');
  });

  it('refuses what JSON refuses, saying where', () => {
    for (const bad of ['{"a": 01}', '{"a": 1,}', '{a: 1}', '{"a": "x', '{"a": NaN}', '{"a": 1} x', '{"a": "\\q"}', '{"a":"\t"}'])
      expect(() => parseJsonText(bad), bad).toThrow(/^not JSON: .* at character \d+/);
    expect(() => parseJsonText(`${'['.repeat(300)}${']'.repeat(300)}`)).toThrow(/levels of nesting/);
  });

  it('paths: names by dots, indexes in brackets, odd names quoted', () => {
    expect(parseJsonPath('customer.id')).toEqual(['customer', 'id']);
    expect(parseJsonPath('lines[0].sku')).toEqual(['lines', 0, 'sku']);
    expect(parseJsonPath('["order.no"]')).toEqual(['order.no']);
    expect(parseJsonPath('meta["unit price"][2]')).toEqual(['meta', 'unit price', 2]);
    for (const bad of ['', 'a.', 'a..b', 'a[x]', 'a[0', '.a', 'a[-1]']) expect(parseJsonPath(bad), bad).toHaveProperty('problem');
  });
});

describe('the JSON Lines reader', () => {
  const LINES = [
    '{"id": 10000000000000000001, "customer": {"id": 7}, "date": "2026-12-01", "lines": [{"price": 1234.50}], "cur.code": "USD"}',
    '{"id": "K2", "customer_id": 8, "date": "2026-12-01", "lines": [{"price": 0.1}]}',
    '{"id": "K3", "customer": {"id": 9}, "date": "2026-12-01", "lines": []}',
    '[1, 2]',
    '{"id": "K5", "customer": 9, "date": "2026-12-01", "lines": [{"price": 1}]',
    '{"id": "K6", "customer": {"id": {"x": 1}}, "date": "2026-12-01", "lines": [{"price": 1}]}',
    '{"id": "K7", "customer": {"id": null}, "date": "2026-12-01", "lines": [{"price": 2}], "cur.code": null}',
  ];

  it('reads each field by its path, numbers as written; each bad line is rejected with its number and text', async () => {
    const items = await read(`\uFEFF${LINES.join('\r\n')}\n\n`);
    expect(summary(items)).toEqual([
      [1, '10000000000000000001', '7', '1234.50', 'USD'],
      [2, 'K2', '8', '0.1', 'EUR'],
      [3, 'PARSE_JSON_PATH', LINES[2]],
      [4, 'PARSE_JSON_NOT_OBJECT', LINES[3]],
      [5, 'PARSE_JSON', LINES[4]],
      [6, 'PARSE_JSON_VALUE', LINES[5]],
      // null is missing: customer_id empty (validation rejects it later), the currency its default
      [7, 'K7', '', '2', 'EUR'],
    ]);
    const path = items[2];
    expect(path?.kind === 'reject' && path.message).toBe('columns.amount (path "lines[0].price"): the object has no such path');
  });

  it('a line that is not UTF-8 is rejected; the next one loads', async () => {
    const bad = Buffer.concat([
      Buffer.from('{"id": "K1", "customer": {"id": 1}, "date": "x'),
      Buffer.from([0xff]),
      Buffer.from('", "lines": [{"price": 1}]}\n'),
    ]);
    const items = await read(Buffer.concat([bad, Buffer.from(`${LINES[1] ?? ''}\n`)]));
    expect(summary(items).map((s) => s.slice(0, 2))).toEqual([
      [1, 'PARSE_ENCODING'],
      [2, 'K2'],
    ]);
  });

  it('a line longer than the longest record read (a JSON line of 50 MB): rejected alone, unbuffered, the next line read', async () => {
    const long = `{"id": "K1", "pad": "${'y'.repeat(50 << 20)}"}`;
    const items = await read(`${long}\n${LINES[1] ?? ''}\n`);
    expect(summary(items).map((s) => s.slice(0, 2))).toEqual([
      [1, 'CSV_MAX_RECORD_SIZE'],
      [2, 'K2'],
    ]);
    // its raw text is not the 50 MB line
    expect(items[0]?.raw.length).toBeLessThan(1 << 21);
  });

  it('resumed at a record’s byte offset, gives the rest of the file as an uninterrupted read (plain and gzip)', async () => {
    const text = `${LINES.join('\n')}\n`;
    for (const content of [text, gzipSync(text)]) {
      const whole = await read(content);
      const second = whole[1];
      if (second?.kind !== 'record' || second.endByte === null) throw new Error('the second line is a record');
      const rest = await read(content, profileOf(), { byte: second.endByte, line: second.endLine });
      expect(summary(rest)).toEqual(summary(whole.slice(2)));
    }
  });

  it('extra: keep: the other top-level properties as attributes, nested values as JSON, numbers as written', async () => {
    const items = await read(
      '{"id": "K1", "customer": {"id": 1}, "date": "d", "lines": [{"price": 1}], "w": 0.10, "tags": ["a", 2.50], "n": null}\n',
      profileOf('extra: keep\n'),
    );
    const record = items[0];
    expect(record?.kind === 'record' && record.attributes).toBe('{"tags":"[\\"a\\",2.50]","w":"0.10"}');
  });

  it('a profile refuses what has no meaning for JSON Lines, and a path that is not one', () => {
    expect(() => profileOf('delimiter: ";"\n')).toThrow(/delimiter has no meaning for format: jsonl/);
    expect(() => profileOf('encoding: shift_jis\n')).toThrow(/JSON text is UTF-8/);
    expect(() =>
      parseProfileText(
        "version: 1\nformat: jsonl\ncolumns:\n  source_key: { column: 'a..b' }\n  customer_id: { column: 2 }\n  order_date: { column: d }\n  amount: { column: a }\n  currency: { const: EUR }\n",
        'p.yaml',
        'p',
      ),
    ).toThrow(/columns\.source_key\.column: not a JSON path/);
  });
});
