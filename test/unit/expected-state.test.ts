/**
 * The oracle of the file-based invariants (test/support/expected-state.ts) on files worked out
 * by hand: the staging rule (last line of a key in a file, later file over earlier one in a
 * round), the processing at the end of a round, and orders keeping an earlier round's value.
 */
import { describe, expect, it } from 'vitest';
import { expectedState, ORDER_HEADER, parseLine, type InputFile, type SiteRules } from '../support/expected-state.js';
import { sharedKeyFiles } from '../support/shared-key-files.js';

const file = (name: string, ...lines: string[]): InputFile => ({ name, text: `${[ORDER_HEADER, ...lines].join('\n')}\n` });

describe('expected state from the files', () => {
  it('parses and classifies lines on its own rules', () => {
    expect(parseLine('K,1,2026-01-31,10.50,EUR', 2)).toEqual({
      kind: 'row',
      lineNo: 2,
      key: 'K',
      values: { customerId: '1', orderDate: '2026-01-31', amount: '10.5', currency: 'EUR' },
    });
    expect(parseLine('K,1,2026-02-30,10,EUR', 3)).toMatchObject({ kind: 'parse-error', code: 'PARSE_ORDER_DATE' });
    expect(parseLine('K,1,1899-12-31,10,EUR', 3)).toMatchObject({ kind: 'parse-error', code: 'PARSE_ORDER_DATE' });
    expect(parseLine('K,x,2026-02-30,10,EUR', 3)).toMatchObject({ kind: 'parse-error', code: 'PARSE_CUSTOMER_ID' });
    expect(parseLine('K,1,2026-01-01,1.234,EUR', 3)).toMatchObject({ kind: 'parse-error', code: 'PARSE_AMOUNT' });
    expect(parseLine('K,1,2026-01-01,1.230,EUR', 3)).toMatchObject({ kind: 'row', values: { amount: '1.23' } });
    expect(parseLine('K,1,2026-01-01,10', 4)).toEqual({ kind: 'rejected', lineNo: 4, code: 'PARSE_FIELD_COUNT' });
    expect(parseLine(' ,1,2026-01-01,10,EUR', 5)).toEqual({ kind: 'rejected', lineNo: 5, code: 'PARSE_SOURCE_KEY' });
  });

  it('one round: the last line of a key in load order is staged and alone processed; a refused last line leaves no order', () => {
    const a = file(
      'a.csv',
      'K1,1,2026-01-01,10,EUR', // overridden by line 4
      'K2,2,2026-01-01,20,EUR', // overridden by b.csv
      'K1,3,2026-01-01,11,EUR',
      'K3,4,2026-01-01,30,EUR', // valid, but b.csv's K3 is refused: no order for K3
      'K4,5,2026-01-01,', // rejected (field count)
    );
    const b = file('b.csv', 'K2,6,2026-01-01,21,EUR', 'K3,7,2026-01-01,,EUR', 'K5,8,2026-02-30,1,EUR', 'K6,9,2026-01-01,99999999999,EUR');
    const bad = { name: 'c.csv', text: 'id,amount\n1,2\n' };
    const s = expectedState([[b, bad, a]]);
    expect(Object.fromEntries([...s.stage].map(([k, r]) => [k, [r.status, r.errorCode, `${r.file}:${r.lineNo}`, r.attempts]]))).toEqual({
      K1: ['DONE', null, 'a.csv:4', 1],
      K2: ['DONE', null, 'b.csv:2', 1],
      K3: ['ERROR', 'INVALID_AMOUNT', 'b.csv:3', 1],
      K5: ['ERROR', 'PARSE_ORDER_DATE', 'b.csv:4', 0],
      K6: ['ERROR', 'db:overflow', 'b.csv:5', 1],
    });
    expect(Object.fromEntries([...s.orders].map(([k, v]) => [k, v.amount]))).toEqual({ K1: '11', K2: '21' });
    expect(s.errorLog).toEqual([
      { phase: 'PARSE', code: 'PARSE_FIELD_COUNT', file: 'a.csv', lineNo: 6, key: null },
      { phase: 'PARSE', code: 'PARSE_ORDER_DATE', file: 'b.csv', lineNo: 4, key: 'K5' },
      { phase: 'VALIDATE', code: 'INVALID_AMOUNT', file: 'b.csv', lineNo: 3, key: 'K3' },
      { phase: 'MERGE', code: 'db:overflow', file: 'b.csv', lineNo: 5, key: 'K6' },
    ]);
    expect(s.refusedFiles).toEqual(['c.csv']);
    expect(s.loadedFiles).toEqual(['a.csv', 'b.csv']);
    expect(Object.fromEntries(s.fates.get('a.csv') ?? [])).toEqual({
      2: 'overridden',
      3: 'overridden',
      4: 'staged',
      5: 'overridden',
      6: 'rejected',
    });
    expect(s.stats).toMatchObject({ keysAcrossFiles: 2, keysRepeatedInAFile: 1, lastRejectedAfterValid: 1 });
  });

  it('a later round: a refused line leaves the order of the earlier round; a valid one replaces it', () => {
    const first = [file('r1.csv', 'K1,1,2026-01-01,10,EUR', 'K2,2,2026-01-01,20,EUR')];
    const second = [file('r2.csv', 'K1,3,2026-01-01,,EUR', 'K2,4,2026-01-01,22,EUR')];
    const s = expectedState([first, second]);
    expect(s.stage.get('K1')).toMatchObject({
      status: 'ERROR',
      errorCode: 'INVALID_AMOUNT',
      file: 'r2.csv',
      attempts: 2, // attempt_count is never reset: K1's first version was processed too
    });
    expect(s.orders.get('K1')?.amount).toBe('10');
    expect(s.orders.get('K2')?.amount).toBe('22');
    expect(s.stats.ordersKeptFromEarlierRound).toBe(1);
  });

  it('refuses a case decided by staging batch boundaries rather than guess', () => {
    const first = [file('r1.csv', 'K1,1,2026-01-01,10,EUR')];
    const second = [file('r2.csv', 'K1,2,2026-01-01,10,EUR', 'K1,1,2026-01-01,10,EUR')];
    expect(() => expectedState([first, second])).toThrow(/batch boundaries/);
  });

  it('rules of the site: a line refused while staging drops alone; a row refused in the MERGE keeps the earlier round', () => {
    const rules: SiteRules = {
      stage: { code: '23514', refuses: (v) => v.currency === 'XXX' },
      orders: { code: 'P0001', refuses: (v) => v.currency === 'YYY' },
    };
    const first = [file('r1.csv', 'K3,1,2026-01-01,30,EUR')];
    const a = file(
      'a.csv',
      'K1,2,2026-01-01,10,EUR', // line 2: overridden by line 4
      'K1,3,2026-01-01,15,XXX', // line 3: refused, then replaced by line 4: logged or not, by the batches
      'K1,4,2026-01-01,20,EUR', // line 4: K1's last line that reaches the stage
      'K1,5,2026-01-01,25,XXX', // line 5: refused
      'K2,6,2026-01-01,60,XXX', // line 6: refused, K2's only line: no stage row
      'K3,7,2026-01-01,70,YYY', // line 7: staged, refused by the rule on orders
    );
    const s = expectedState([first, [a]], rules);
    expect(s.stage.get('K1')).toMatchObject({ status: 'DONE', lineNo: 4 });
    expect(s.orders.get('K1')?.amount).toBe('20');
    expect(s.stage.has('K2')).toBe(false);
    expect(s.stage.get('K3')).toMatchObject({ status: 'ERROR', errorCode: 'P0001', lineNo: 7 });
    expect(s.orders.get('K3')?.amount).toBe('30');
    expect(s.errorLog.map((e) => [e.phase, e.code, e.lineNo, e.key])).toEqual([
      ['PARSE', '23514', 5, 'K1'],
      ['PARSE', '23514', 6, 'K2'],
      ['MERGE', 'P0001', 7, 'K3'],
    ]);
    expect(s.maybeErrorLog.map((e) => [e.phase, e.code, e.lineNo, e.key])).toEqual([['PARSE', '23514', 3, 'K1']]);
    expect(s.siteRefusals).toEqual({ staging: 3, merge: 1 });
  });

  it('generated files repeat keys within and across files, with last lines valid and refused', () => {
    const { files } = sharedKeyFiles({ names: ['a.csv', 'b.csv', 'c.csv'], linesPerFile: 300, keys: 400, seed: 7 });
    const s = expectedState([files]);
    expect(s.stats.lines).toBe(900);
    for (const [what, n] of Object.entries(s.stats)) if (what !== 'ordersKeptFromEarlierRound') expect(n, what).toBeGreaterThan(0);
  });
});
