import oracledb from 'oracledb';
import { describe, expect, it } from 'vitest';
import {
  Binds,
  checkValueSizes,
  matchesNothing,
  MAX_SLOT_SETS,
  slotBinds,
  slotCombinations,
  textList,
  textRuns,
} from '../../src/engine/oracle/binds.js';
import type { OraConstants } from '../../src/engine/oracle/oracledb-types.js';
import { UserError } from '../../src/errors.js';

/** The driver's own type constants (no connection: these rules only choose binds). */
const c = oracledb as unknown as OraConstants;
const CLOB = { type: c.DB_TYPE_CLOB };
const varchar = (maxSize: number) => ({ type: c.DB_TYPE_VARCHAR, maxSize });

describe('long text: VARCHAR2 while it fits the limit in bytes, else CLOB', () => {
  it('a value of exactly the limit still fits; one byte more does not (bytes, not characters)', () => {
    const binds = new Binds(c);
    binds.varcharLimit = 8;
    expect(binds.longText(['12345678', null])).toEqual(varchar(8));
    expect(binds.longText(['123456789'])).toEqual(CLOB);
    expect(binds.longText(['1234567é'])).toEqual(CLOB); // 9 bytes in UTF-8, 8 characters
    expect(binds.longText(['short', '123456789'])).toEqual(CLOB); // one long value makes the bind a CLOB
    expect(binds.longStr('123456789')).toEqual({ val: '123456789', ...CLOB });
    expect(binds.longStr('1234')).toEqual({ val: '1234', ...varchar(8) });
  });

  it('the rows of one call split into runs of the same bind types, in their order', () => {
    const rows = [
      ['a', 'b'],
      ['a', 'long'],
      ['b', 'long'],
      ['long', 'b'],
      ['c', null],
    ] as const;
    expect(textRuns(rows, (r) => r, 3)).toEqual([[rows[0]], [rows[1], rows[2]], [rows[3]], [rows[4]]]);
    expect(textRuns(rows.slice(0, 1), (r) => r, 3)).toEqual([[rows[0]]]);
    expect(textRuns(['abc', 'abcd'], (r) => [r], 3)).toEqual([['abc'], ['abcd']]); // exactly the limit: VARCHAR2
    expect(textRuns([], (r: string) => [r], 3)).toEqual([]);
  });
});

describe('slot lists (:by_<name>, :<name>1..20)', () => {
  it('one slice holds at most 20 values', () => {
    expect(() =>
      slotBinds(
        c,
        'load_id',
        Array.from({ length: 21 }, (_, i) => i),
      ),
    ).toThrow('Oracle engine: more than 20 values for the load_id slots');
    expect(slotBinds(c, 'load_id', [7]).by_load_id).toEqual({ val: 1, type: c.DB_TYPE_NUMBER });
  });

  it('past 64 combinations the selection is refused naming the sizes of the lists given', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
    const refuse = (lists: Parameters<typeof slotCombinations>[1]) => () => slotCombinations(c, lists);
    expect(refuse([{ name: 'load_id', values: many(1300) }])).toThrow(UserError);
    expect(
      refuse([
        { name: 'stage_id', values: null },
        { name: 'load_id', values: [...many(200), 1, 2] },
        { name: 'error_code', values: Array.from({ length: 140 }, (_, i) => `E${i}`), maxSize: 120 },
      ]),
    ).toThrow(
      `Oracle: the selection (200 load_id values, 140 error_code values) needs 70 queries (lists of more than 20 values multiply); at most ${MAX_SLOT_SETS}: give fewer values, or run the command once per part of a list`,
    );
    expect(slotCombinations(c, [{ name: 'load_id', values: many(1280) }])).toHaveLength(64);
  });

  it('a text list drops values longer than the column (they match no row); an empty one matches nothing', () => {
    expect(textList(['abc', 'abcd', '𠮷𠮷𠮷'], 3)).toEqual(['abc', '𠮷𠮷𠮷']);
    expect(textList([], 3)).toBeNull();
    expect(matchesNothing([{ name: 'load_id', values: null }])).toBe(false);
    expect(matchesNothing([{ name: 'load_id', values: [1] }])).toBe(false);
    expect(
      matchesNothing([
        { name: 'load_id', values: [1] },
        { name: 'error_code', values: [] },
      ]),
    ).toBe(true);
  });
});

describe('value sizes checked before binding (never NJS-058 for a whole executeMany)', () => {
  const values = { customerId: '1', orderDate: '2026-01-05', amount: '1', currency: 'JPY' };

  it('a value of exactly its bind size passes; one byte more is named by row, never by value', () => {
    expect(() => checkValueSizes('stage', 'line 4', 'K', { ...values, currency: 'x'.repeat(12) })).not.toThrow();
    expect(() => checkValueSizes('stage', 'line 4', 'K', { ...values, currency: 'x'.repeat(13) })).toThrow(
      'stage: the currency of line 4 is too long to be a valid value',
    );
    expect(() => checkValueSizes('stage', 'line 4', 'k'.repeat(100), values)).not.toThrow();
    expect(() => checkValueSizes('stage', 'line 4', 'k'.repeat(101), values)).toThrow(
      'stage: the source_key of line 4 is longer than 100 characters',
    );
  });
});
