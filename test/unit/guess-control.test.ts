/** guess proposes a control: section when the last or first line states the file's totals, with its evidence. */
import { describe, expect, it } from 'vitest';
import { guessFromSample } from '../../src/input/guess/index.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';

const D = ['D|K-1|20261201|501|1200.00', 'D|K-2|20261201|502|3400.50', 'D|K-3|20261202|503|780.00'];
const guess = (lines: string[], complete = true) =>
  guessFromSample('BANK_JPY_20261207.txt', Buffer.from(`${lines.join('\n')}\n`), complete);

describe('guess: control totals', () => {
  it('a trailer whose fields are the number of data lines and the sum of the amounts: proposed, and the draft loads', () => {
    const g = guess(['H|20261207|ACME', ...D, 'T|3|5380.50']);
    expect(g.yaml).toContain(
      '# control: the last line (T|3|5380.50) looks like a trailer record: field 2 ("3") equals the number of data lines (3); field 3 ("5380.50") equals the sum of the amounts (5380.50)',
    );
    expect(g.yaml).toContain('control:\n  trailer: { column: 1, equals: "T" }\n  count: { column: 2 }\n  sum: { column: 3 }\n');
    expect(g.open).toEqual([]);
    expect(parseProfileText(g.yaml, 'draft', 'draft').spec.control).toMatchObject({
      trailer: { equals: 'T' },
      count: { column: 2 },
      sum: { column: 3 },
    });
  });

  it('a header record before header-less records', () => {
    const g = guess(['H|3|5380.50', ...D]);
    expect(g.yaml).toMatch(/# control: the first line \(H\|3\|5380\.50\) looks like a header record: field 2/);
    expect(g.yaml).toContain('  header: { column: 1, equals: "H" }');
  });

  it('figures that are not the file’s: nothing proposed; a sample that is not the whole file: said, not proposed', () => {
    expect(guess([...D, 'T|4|9999.00']).yaml).not.toContain('control');
    const part = guess([...D, 'T|3|5380.50'], false);
    expect(part.yaml).toContain('#   not proposed: the sample is not the whole file');
    expect(part.yaml).not.toContain('\ncontrol:');
  });

  it('a JSON Lines trailer object: set apart from the orders; proposed by a path that tells it apart, else said and not proposed', () => {
    const orders = [1, 2, 3].map((i) => `{"id":"J-${i}","customer":"50${i}","date":"2026-12-01","total":${i}.50,"currency":"JPY"}`);
    const jsonl = (last: string, complete = true) =>
      guessFromSample('SHOP_20261201.jsonl', Buffer.from(`${[...orders, last].join('\n')}\n`), complete);
    const g = jsonl('{"kind":"T","n":3,"sum":"7.50"}');
    expect(g.yaml).toContain('control:\n  trailer: { column: "kind", equals: "T" }\n  count: { column: "n" }\n  sum: { column: "sum" }\n');
    expect(g.yaml).toContain('# 3 JSON object(s), one per line');
    const plain = jsonl('{"n":3,"sum":"7.50"}');
    expect(plain.yaml).toContain('#   not proposed: no field tells it apart from the data records');
    expect(plain.yaml).not.toContain('\ncontrol:');
    // a sample that is not the whole file: its last object is read as an order
    expect(jsonl('{"kind":"T","n":3,"sum":"7.50"}', false).yaml).not.toContain('control');
  });
});
