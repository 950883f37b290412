/**
 * The built-in format's Excel guard test skipped for lines without `=` (ParsedRecord.unguarded,
 * one native scan per batch of lines): the same fields as when every field is tested.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { unwrapExcelGuard } from '../../src/input/excel-guard.js';
import { openRecordReader, type ParsedRecord } from '../../src/input/formats/delimited-records.js';
import { openOrderFile, type FileRecord } from '../../src/input/order-file.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency\n';

function fileOf(lines: string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'guard-scan-')), 'orders.csv');
  writeFileSync(path, HEADER + lines.join('\n') + '\n');
  return path;
}

describe('the Excel guard scan of the delimited reader', () => {
  test('records of a batch without `=` are marked unguarded, those of a batch with one are not', async () => {
    const plain = Array.from({ length: 300 }, (_, i) => `K${i},7,2026-01-02,1.50,EUR`);
    const path = fileOf([...plain, '="K0300",7,2026-01-02,1.50,EUR']);
    const reader = openRecordReader(path, { encoding: 'utf-8', delimiter: ',' });
    const records: ParsedRecord[] = [];
    for (let r = await reader.next(); r !== null; r = await reader.next()) records.push(r);
    reader.close();
    expect(records).toHaveLength(302);
    expect(records[1]?.unguarded).toBe(true);
    // the last line's batch holds its `=`
    expect(records[301]?.unguarded).toBe(false);
  });

  test('guarded fields are unwrapped wherever they stand, the others read as written', async () => {
    const lines = Array.from({ length: 400 }, (_, i) => `K${i},7,2026-01-02,${i % 50 === 0 ? '' : '1.50'},EUR`);
    lines[130] = '="000130",="0007", ="2026-01-02",1.50,EUR';
    lines[399] = 'K399,7,2026-01-02,="a""b",=SUM(A1)';
    for (const readChunkSize of [64, 4096, 1 << 18]) {
      const file = await openOrderFile(fileOf(lines), { encoding: 'utf-8', delimiter: ',', readChunkSize });
      const fields: FileRecord['fields'][] = [];
      for await (const item of file.items) if (item.kind === 'record') fields.push(item.fields);
      file.close();
      expect(fields).toHaveLength(400);
      expect(fields[130]).toEqual({ source_key: '000130', customer_id: '0007', order_date: '2026-01-02', amount: '1.50', currency: 'EUR' });
      expect(fields[399]).toEqual({ source_key: 'K399', customer_id: '7', order_date: '2026-01-02', amount: 'a"b', currency: '=SUM(A1)' });
      expect(fields[0]).toEqual({ source_key: 'K0', customer_id: '7', order_date: '2026-01-02', amount: '', currency: 'EUR' });
      expect(fields[131]?.source_key).toBe('K131');
    }
  });

  test('an empty or blank field is returned as it is', () => {
    expect(unwrapExcelGuard('')).toBe('');
    expect(unwrapExcelGuard(' ')).toBe(' ');
    expect(unwrapExcelGuard('\t="1"')).toBe('1');
  });
});
