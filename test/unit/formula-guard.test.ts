import { describe, expect, it } from 'vitest';
import { isErrorExportHeader, neutraliseFormula, restoreFormula } from '../../src/input/formula-guard.js';
import { splitRawLine } from '../../src/input/raw-line.js';

describe('formula guard of the errors export', () => {
  it('restoring undoes neutralising byte for byte, apostrophes of the value included', () => {
    for (const v of ['=1+1', '-5.00', '+x', '@a', '\tx', "'=already", "''-1", "'plain", 'plain', '', "'", '-']) {
      expect(restoreFormula(neutraliseFormula(v)), JSON.stringify(v)).toBe(v);
    }
    expect(neutraliseFormula('=1+1')).toBe("'=1+1");
    expect(neutraliseFormula("'=already")).toBe("''=already");
    expect(neutraliseFormula("'plain")).toBe("'plain");
  });

  it('recognises our export by its four added columns, in any case and order', () => {
    expect(
      isErrorExportHeader([
        'source_key',
        'customer_id',
        'order_date',
        'amount',
        'currency',
        'error_code',
        'error_message',
        'line_no',
        'load_id',
      ]),
    ).toBe(true);
    expect(isErrorExportHeader(['LOAD_ID', ' Line_No ', 'error_message', 'error_code', 'source_key'])).toBe(true);
    expect(isErrorExportHeader(['source_key', 'customer_id', 'order_date', 'amount', 'currency', 'error_code'])).toBe(false);
  });
});

describe('splitRawLine', () => {
  const layout = { header: ['source_key', 'customer_id', 'order_date', 'amount', 'currency'], delimiter: ',' };

  it('maps the fields of a rejected line by its file header; missing fields are empty, extra ones dropped', () => {
    expect(splitRawLine('P-1,7,2026-01-05,1e5,JPY', layout)).toEqual({
      source_key: 'P-1',
      customer_id: '7',
      order_date: '2026-01-05',
      amount: '1e5',
      currency: 'JPY',
    });
    expect(splitRawLine('P-1,7', layout)).toEqual({ source_key: 'P-1', customer_id: '7', order_date: '', amount: '', currency: '' });
    expect(splitRawLine('P-1,7,2026-01-05,1,000,JPY', layout).currency).toBe('000');
    expect(splitRawLine('"P,1",7,2026-01-05,"1""0",JPY', layout)).toMatchObject({ source_key: 'P,1', amount: '1"0' });
  });

  it('is lenient: a stray quote, an unclosed quote', () => {
    expect(splitRawLine('P-1,7,2026-01-05,1"00,JPY', layout).amount).toBe('1"00');
    expect(splitRawLine('P-1,"7,2026-01-05', layout)).toMatchObject({ source_key: 'P-1', customer_id: '"7', order_date: '2026-01-05' });
  });

  it('another delimiter and column order; an export of ours has its formula guard removed', () => {
    expect(
      splitRawLine('JPY;-5;P-2', { header: ['currency', 'amount', 'source_key', 'order_date', 'customer_id'], delimiter: ';' }),
    ).toEqual({
      source_key: 'P-2',
      customer_id: '',
      order_date: '',
      amount: '-5',
      currency: 'JPY',
    });
    const ours = {
      header: ['source_key', 'customer_id', 'order_date', 'amount', 'currency', 'error_code', 'error_message', 'line_no', 'load_id'],
      delimiter: ',',
    };
    expect(splitRawLine("''=k,7,2026-01-05,'-5,JPY,E,m,2,1", ours)).toMatchObject({ source_key: "'=k", amount: '-5' });
  });
});
