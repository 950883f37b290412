/**
 * Which of a line's date and amount the order the mapping hands over takes as its mask or form
 * made them (trustedForms): the decision itself, profile by profile. Trusting a form wrongly hands
 * over an order parseOrderRecord would not make (mapped-order*.test.ts check the orders); not
 * trusting one where it could reads the field a second time: the same order, more CPU on every
 * line, which no order shows, so the decision is asserted here. (Profiles are built inside the
 * tests: this file is in the profile group's mutation list, test/mutation/profile/vitest.config.ts.)
 */
import { describe, expect, test } from 'vitest';
import { compileColumns, trustedForms, type CompiledColumn } from '../../src/input/profile/column-reader.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';

/** trustedForms of a profile whose order_date and amount columns are `date` and `amount`. */
function trusted(date: string, amount: string, top: string[] = []) {
  const profile = parseProfileText(
    [
      'version: 1',
      'header: false',
      "delimiter: ';'",
      ...top,
      'columns:',
      '  source_key: { column: 1 }',
      '  customer_id: { column: 2 }',
      `  order_date: { ${date} }`,
      `  amount: { ${amount} }`,
      '  currency: { column: 5 }',
    ].join('\n'),
    'p.yaml',
    'p',
  );
  const columns = compileColumns(profile.spec, {}, {}, { code: undefined, sign: '' });
  return trustedForms(columns[2] as CompiledColumn, columns[3] as CompiledColumn);
}

const MASK = "column: 3, date: 'DD.MM.YYYY'";
const FORM = "column: 4, decimal: ','";

describe('trustedForms: a form is trusted when it alone makes the field', () => {
  test('a mask, and a number form by any of its keys, without default, prefix or const: both trusted', () => {
    expect(trusted(MASK, FORM)).toEqual({ date: true, amount: true });
    expect(trusted(MASK, "column: 4, group: '.'")).toEqual({ date: true, amount: true });
    expect(trusted(MASK, "column: 4, negative: ['()']")).toEqual({ date: true, amount: true });
    expect(trusted(MASK, "column: 4, currency_signs: { '$': USD }")).toEqual({ date: true, amount: true });
  });

  test('a default in the form: still trusted (it is valid as it stands)', () => {
    expect(trusted(`${MASK}, default: '2026-01-01'`, `${FORM}, default: '12.5'`)).toEqual({ date: true, amount: true });
    expect(trusted(`${MASK}, default: '1900-01-01'`, `${FORM}, default: '0'`)).toEqual({ date: true, amount: true });
  });
});

describe('trustedForms: not trusted when something else can stand in the form’s place', () => {
  test('no mask, no number form: the text is read again', () => {
    expect(trusted('column: 3', FORM)).toEqual({ date: false, amount: true });
    expect(trusted(MASK, 'column: 4')).toEqual({ date: true, amount: false });
  });

  test('a default out of the form (not YYYY-MM-DD from 1900 on; not canonical)', () => {
    for (const fallback of ['2026/01/01', '2026-02-30', '1899-12-31', 'x'])
      expect(trusted(`${MASK}, default: '${fallback}'`, FORM), fallback).toEqual({ date: false, amount: true });
    for (const fallback of ['12.50', '007', '1.0', '-0', 'x'])
      expect(trusted(MASK, `${FORM}, default: '${fallback}'`), fallback).toEqual({ date: true, amount: false });
  });

  test('a prefix before the form’s output', () => {
    expect(trusted(`${MASK}, prefix: '2'`, FORM)).toEqual({ date: false, amount: true });
    expect(trusted(MASK, `${FORM}, prefix: '1'`)).toEqual({ date: true, amount: false });
  });

  test('a const, or the file name’s group, in place of the column', () => {
    expect(trusted("const: '2026-12-01', date: 'DD.MM.YYYY'", FORM)).toEqual({ date: false, amount: true });
    expect(trusted(MASK, "const: '5', decimal: ','")).toEqual({ date: true, amount: false });
    const named = ["file_pattern: 'o_(?<d>\\d{8})_(?<a>\\d+)\\.csv'"];
    expect(trusted("file_group: d, date: 'YYYYMMDD'", FORM, named)).toEqual({ date: false, amount: true });
    expect(trusted(MASK, "file_group: a, decimal: ','", named)).toEqual({ date: true, amount: false });
  });
});
