/**
 * The edges of a row's attributes (src/input/profile/attributes.ts), beside attributes.test.ts:
 * the names of columns without one, the key order with equal names, a column listed twice, and
 * stored text that is not an object of texts.
 */
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import {
  attributeColumns,
  attributeName,
  attributesJson,
  canonicalAttributes,
  parseAttributes,
  positionalAttributes,
} from '../../src/input/profile/attributes.js';

const key = (n: string) => n.trim().toLowerCase();

describe('attribute columns', () => {
  it('a column without a name (blank, or past the header) is named by its 1-based number', () => {
    expect(attributeName(['a', '  ', 'c'], 1)).toBe('2');
    expect(attributeName(['a'], 3)).toBe('4');
    expect(attributeName([' Region '], 0)).toBe('Region');
    const columns = attributeColumns(['source_key', '', 'Region'], new Set([0]), 'keep', key, 'p');
    expect(columns.names).toEqual(['2', 'Region']);
    expect(attributesJson(['K', 'x', 'EU'], columns)).toBe('{"2":"x","Region":"EU"}');
  });

  it('a column listed twice in extra is kept once; the first column of the header is found too', () => {
    const columns = attributeColumns(['Region', 'source_key', 'Channel'], new Set([1]), ['region', 'REGION', 'Channel'], key, 'p');
    expect(columns.indexes).toEqual([2, 0]);
    expect(columns.names).toEqual(['Channel', 'Region']);
    expect(() => attributeColumns(['a', 'b'], new Set(), ['c'], key, 'p.yaml')).toThrow(
      new UserError('p.yaml: extra: column "c" is not in the header'),
    );
  });

  it('a kept column of a reserved name is refused naming the reserved names', () => {
    expect(() => attributeColumns(['Error_Code', 'x'], new Set([1]), 'keep', key, 'p.yaml')).toThrow(
      /^p\.yaml: extra: the column "Error_Code" has the name of a column of the errors export \(source_key, customer_id, order_date, amount, currency, .*raw_record\): it cannot be kept as an attribute/,
    );
  });

  it('keys in code-unit order (upper case first); equal names keep their record order', () => {
    const positional = positionalAttributes(new Set([0]))(12);
    // "10" < "11" < "2" as text
    expect(positional.names).toEqual(['10', '11', '12', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(positional.indexes).toEqual([9, 10, 11, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(positionalAttributes(new Set([0, 1]))(2).names).toEqual([]);
    expect(canonicalAttributes({ b: '1', B: '2', a: '3' })).toBe('{"B":"2","a":"3","b":"1"}');
    // a record shorter than the columns: the missing ones left out
    expect(attributesJson(['x', 'y'], positional)).toBe('{"2":"y"}');
  });

  it('the columns of a length are made once and kept', () => {
    const of = positionalAttributes(new Set([1]));
    expect(of(3)).toBe(of(3));
    expect(of(3).names).toEqual(['1', '3']);
    expect(of(4).names).toEqual(['1', '3', '4']);
  });
});

describe('parseAttributes: stored text read back', () => {
  it('none: null, empty or undefined; text that is not a JSON object: null', () => {
    for (const text of [null, undefined, '', 'x', '[]', '["a"]', '"a"', '1', 'null', 'true']) expect(parseAttributes(text)).toBeNull();
  });

  it('an object: its values as text (other JSON values written as JSON); __proto__ a key like any other', () => {
    const parsed = parseAttributes('{"a":"x","n":1,"o":{"k":true},"__proto__":"p"}');
    expect(parsed).toEqual({ a: 'x', n: '1', o: '{"k":true}', ['__proto__']: 'p' });
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed ?? {})).toEqual(['a', 'n', 'o', '__proto__']);
    // the object read back can be changed and its keys removed, as any other
    const out = parseAttributes('{"a":"x"}')!;
    out.a = 'y';
    delete out.b;
    expect(out).toEqual({ a: 'y' });
    expect(delete (out as { a?: string }).a).toBe(true);
    expect(out).toEqual({});
  });
});
