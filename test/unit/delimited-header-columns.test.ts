/**
 * profileHeader (src/input/formats/delimited-header.ts) called directly with a CSV header: which
 * columns it finds, which it says are unused, and the name a field was found under. The reader's
 * tests reach it through whole files, where these often change nothing they look at. Written
 * against the survivors of StrykerJS's `delimited` group (docs/mutation.md, "Scores of the
 * `delimited` group"); not yet in the group's list.
 */
import { describe, expect, it } from 'vitest';
import { profileHeader } from '../../src/input/formats/delimited-header.js';
import { parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';

const COLUMNS =
  '  source_key: { column: Key }\n  customer_id: { column: Cust }\n  order_date: { column: Date }\n' +
  '  amount: { column: Amount }\n  currency: { const: JPY }\n';

const profile = (rest = ''): LoadProfile =>
  parseProfileText(`version: 1\nname: p\nformat: csv\n${rest}columns:\n${COLUMNS}`, 'p.yaml', 'p');

describe('profileHeader: the columns of a CSV header', () => {
  it('finds each named column once; a name on two columns refuses the file naming both', () => {
    const found = profileHeader(['Key', 'Cust', 'Date', 'Amount'], 'a.csv', profile(), 1);
    expect(found.order).toEqual([0, 1, 2, 3, -1]);
    expect(() => profileHeader(['Key', 'Cust', 'Date', 'Amount', 'key'], 'a.csv', profile(), 1)).toThrow(
      /"Key" names columns 1 and 5 of the header of a\.csv/,
    );
  });

  it('without `when`, no column is tested: `when` is -1 and the record needs only the fields', () => {
    const found = profileHeader(['Key', 'Cust', 'Date', 'Amount', 'Note'], 'a.csv', profile(), 1);
    expect(found.when).toBe(-1);
    expect(found.needed).toBe(4);
    expect(found.header.extraColumns).toEqual(['Note']);
  });

  it('the columns said unused are those no field, `when` or attribute takes; none with `extra: ignore` written', () => {
    const names = [' Key ', 'Cust', ' Memo ', 'Date', 'Amount', 'Kind'];
    const found = profileHeader(names, 'a.csv', profile('when: { column: Kind, equals: A }\n'), 1);
    expect(found.when).toBe(5);
    expect(found.header.extraColumns).toEqual(['Memo']);
    expect(found.header.names).toEqual(['Key', 'Cust', 'Memo', 'Date', 'Amount', 'Kind']);
    expect(profileHeader(names, 'a.csv', profile('extra: ignore\n'), 1).header.extraColumns).toEqual([]);
  });
});
