/**
 * Control records in the fixed-width reader (src/input/profile/fixed-reader.ts), without a
 * database: a trailer line matched by its rule is kept as a control record (line, text), is no
 * data row and is not counted as discarded, whatever `skip_lines`, `comment` or `when` say; lines
 * a `when` rule discards are counted apart from the others (the hint after a file whose every
 * line was discarded names the rule that did it).
 */
import { describe, expect, it } from 'vitest';
import { openOrderFile, type PassedOverReason } from '../../src/input/order-file.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';
import { writeTestFile } from '../support/files.js';

/** K(4) C(3) YYYYMMDD(8) amount(5) kind(1): 21 bytes a data line; a trailer is T + count(3) + sum(8). */
const PROFILE = `version: 1
format: fixed
columns:
  source_key: { at: [1, 4] }
  customer_id: { at: [5, 3] }
  order_date: { at: [8, 8], date: "YYYYMMDD" }
  amount: { at: [16, 5] }
  currency: { const: "JPY" }
`;
const CONTROL = `control:
  trailer: { at: [1, 1], equals: "T" }
  count: { at: [2, 3] }
  sum: { at: [5, 8] }
`;
const line = (key: string, kind = 'D') => `${key}00720260105 0100${kind}`;

async function read(content: string, extra: string) {
  const profile = parseProfileText(`${PROFILE}${extra}`, 'p.yaml', 'p');
  const path = writeTestFile(content);
  const passed: Array<[number, PassedOverReason]> = [];
  const file = await openOrderFile(path, {
    encoding: 'utf-8',
    delimiter: ',',
    profile,
    observe: { passedOver: (l) => passed.push([l.lineNo, l.reason]), fieldsRead: () => undefined },
  });
  const keys: string[] = [];
  try {
    for await (const item of file.items) keys.push(item.kind === 'record' ? item.fields.source_key : item.code);
  } finally {
    file.close();
  }
  return { keys, passed, discarded: file.discarded(), byWhen: file.discardedByWhen?.() ?? -1, controls: file.controlRecords?.() };
}

describe('the fixed-width reader: control records', () => {
  it('a trailer matched by its rule is a control record, no data row, not discarded, told to the observer', async () => {
    const trailer = 'T002     200';
    const r = await read(`${line('K001')}\n${line('K002')}\n${trailer}\n`, CONTROL);
    expect(r.keys).toEqual(['K001', 'K002']);
    expect(r.controls).toEqual([{ lineNo: 3, fields: null, text: trailer }]);
    expect(r.passed).toEqual([[3, 'control']]);
    expect(r.discarded).toBe(0);
  });

  it('a trailer is matched before skip_lines, comment and when; without a control rule the same line is data or discarded', async () => {
    const rules = 'skip_lines: 1\ncomment: "T"\nwhen: { at: [21, 1], equals: "D" }\n';
    const content = `T001     100\n${line('K001')}\n${line('K002', 'X')}\nT001     100\n`;
    const withControl = await read(content, `${rules}${CONTROL}`);
    expect(withControl.keys).toEqual(['K001']);
    expect(withControl.controls?.map((c) => c.lineNo)).toEqual([1, 4]);
    expect(withControl.passed).toEqual([
      [1, 'control'],
      [3, 'when'],
      [4, 'control'],
    ]);
    expect([withControl.discarded, withControl.byWhen]).toEqual([1, 1]);
    const without = await read(content, rules);
    expect(without.controls).toEqual([]);
    expect(without.passed).toEqual([
      [1, 'skip_lines'],
      [3, 'when'],
      [4, 'comment'],
    ]);
    expect([without.discarded, without.byWhen]).toEqual([3, 1]);
  });
});
