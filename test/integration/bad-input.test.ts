import { expect } from 'vitest';
import { UserError } from '../../src/errors.js';
import type { TestDatabase } from '../support/databases.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, writeTestFile } from '../support/files.js';

forEachTarget('bad input on $kind', () => {
  const errorLog = (db: TestDatabase) =>
    db.sql<{
      line_no: number;
      phase: string;
      error_code: string;
      error_message: string;
      source_key: string | null;
      raw_record: string | null;
      stage_id: number | null;
    }>('SELECT line_no, phase, error_code, error_message, source_key, raw_record, stage_id FROM order_bulk_error ORDER BY line_no');

  targetTest('accounts for every data line: staged, or in the error log with its line number and raw text', async ({ db }) => {
    const { loader } = await db.open();
    const file = writeTestFile(
      [
        `\ufeff${HEADER}`,
        'OK-1,1,2026-01-01,10,JPY',
        'BAD-CUST,abc,2026-01-01,10,JPY', // wrong type: customer_id
        'BAD-DATE,2,2026-02-30,10,JPY', // wrong type: order_date
        'BAD-AMT,3,2026-01-01,12.345,JPY', // wrong type: amount
        'BAD-CUR,4,2026-01-01,10,EURO', // currency too long
        ',5,2026-01-01,10,JPY', // no source_key
        'FIELDS,6,2026-01-01,10', // wrong number of fields
        'OK-2,7,2026-01-01,20,JPY',
        'NEG,8,2026-01-01,-5,JPY', // parses, fails validation
      ].join('\r\n') + '\r\n',
    );
    const report = await loader.load([file]);
    expect(report.exitCode).toBe(2);
    const counts = report.files[0]!.counts;
    expect(counts).toMatchObject({ read: 9, rejected: 6, inserted: 7 });
    expect(await errorLog(db)).toEqual([
      expect.objectContaining({
        line_no: 3,
        phase: 'PARSE',
        error_code: 'PARSE_CUSTOMER_ID',
        source_key: 'BAD-CUST',
        raw_record: 'BAD-CUST,abc,2026-01-01,10,JPY',
        stage_id: expect.any(Number) as unknown,
      }),
      expect.objectContaining({ line_no: 4, phase: 'PARSE', error_code: 'PARSE_ORDER_DATE', source_key: 'BAD-DATE' }),
      expect.objectContaining({ line_no: 5, phase: 'PARSE', error_code: 'PARSE_AMOUNT', source_key: 'BAD-AMT' }),
      expect.objectContaining({ line_no: 6, phase: 'PARSE', error_code: 'PARSE_CURRENCY', source_key: 'BAD-CUR' }),
      expect.objectContaining({ line_no: 7, phase: 'PARSE', error_code: 'PARSE_SOURCE_KEY', source_key: null, stage_id: null }),
      expect.objectContaining({ line_no: 8, phase: 'PARSE', error_code: 'PARSE_FIELD_COUNT', raw_record: 'FIELDS,6,2026-01-01,10' }),
      expect.objectContaining({ line_no: 10, phase: 'VALIDATE', error_code: 'INVALID_AMOUNT', source_key: 'NEG' }),
    ]);
    const log = await errorLog(db);
    expect(log[0]?.error_message).toBe('customer_id is not an integer: "abc"');
    expect(await db.sql("SELECT source_key, process_status FROM order_stage WHERE process_status <> 'DONE' ORDER BY source_key")).toEqual([
      { source_key: 'BAD-AMT', process_status: 'ERROR' },
      { source_key: 'BAD-CUR', process_status: 'ERROR' },
      { source_key: 'BAD-CUST', process_status: 'ERROR' },
      { source_key: 'BAD-DATE', process_status: 'ERROR' },
      { source_key: 'NEG', process_status: 'ERROR' },
    ]);
    // a corrected line later makes the parse-rejected row READY again and it loads
    const fix = writeTestFile(`${HEADER}\nBAD-CUST,3,2026-01-01,10,JPY\n`);
    const again = await loader.load([fix]);
    expect(again.files[0]?.counts).toMatchObject({ updated: 1 });
    expect(await db.sql("SELECT process_status FROM order_stage WHERE source_key = 'BAD-CUST'")).toEqual([{ process_status: 'DONE' }]);
  });

  targetTest('stages what precedes an unterminated quote, logs the broken record, and exits 1', async ({ db }) => {
    const { loader } = await db.open();
    const file = writeTestFile(`${HEADER}\nA,1,2026-01-01,1,JPY\n"B,2,2026-01-01,2,JPY\nC,3,2026-01-01,3,JPY\n`);
    const report = await loader.load([file]);
    expect(report.exitCode).toBe(1);
    expect(report.aborted).toContain('line 3');
    expect(report.aborted).toContain('unterminated quote');
    expect(await errorLog(db)).toEqual([expect.objectContaining({ line_no: 3, phase: 'PARSE', error_code: 'CSV_QUOTE_NOT_CLOSED' })]);
    expect(await db.sql('SELECT source_key, process_status FROM order_stage')).toEqual([{ source_key: 'A', process_status: 'DONE' }]);
    // the same file again: the same stop, said again, nothing read or logged twice
    const again = await loader.load([file]);
    expect(again.exitCode).toBe(1);
    expect(again.aborted).toContain('line 3');
    expect(again.files[0]?.skipped).toContain('could not read this file past line 3');
    expect(await errorLog(db)).toHaveLength(1);
  });

  targetTest('refuses a file with a missing column and a missing file before writing anything', async ({ db }) => {
    const { loader } = await db.open();
    for (const path of [writeTestFile('source_key,customer_id,order_date,currency\nA,1,2026-01-01,JPY\n'), '/nonexistent.csv']) {
      await expect(loader.load([path])).rejects.toBeInstanceOf(UserError);
    }
    expect(await db.sql('SELECT count(*) AS n FROM load_run')).toEqual([{ n: 0 }]);
    expect(await db.sql('SELECT count(*) AS n FROM order_stage')).toEqual([{ n: 0 }]);
  });

  targetTest('a zero-byte file (a day without orders) is an empty load: exit 0, reported as empty, nothing written', async ({ db }) => {
    const { loader } = await db.open();
    const empty = writeTestFile('');
    const report = await loader.load([empty]);
    expect(report.exitCode).toBe(0);
    expect(report.aborted).toBeNull();
    expect(report.empty).toEqual([{ file: empty, movedTo: null }]);
    expect(report.files).toEqual([]);
    // no run of the file's own: the one run is the load's processing of earlier loads, without a file
    expect(await db.sql('SELECT file_name, count(*) AS n FROM load_run GROUP BY file_name')).toEqual([{ file_name: null, n: 1 }]);
    expect(await db.sql('SELECT count(*) AS n FROM order_stage')).toEqual([{ n: 0 }]);
  });

  targetTest('a header-only file loads nothing and exits 0', async ({ db }) => {
    const { loader } = await db.open();
    const report = await loader.load([writeTestFile(`${HEADER}\n`)]);
    expect(report.exitCode).toBe(0);
    expect(report.files[0]?.counts.read).toBe(0);
  });

  targetTest('warns about extra columns through the log', async ({ db }) => {
    const { loader, logs } = await db.open();
    await loader.load([writeTestFile(`${HEADER},comment\nA,1,2026-01-01,1,JPY,hi\n`)]);
    expect(logs.records.find((r) => r.level === 40 && r.msg.includes('ignoring extra column'))).toMatchObject({ columns: ['comment'] });
  });

  targetTest('loads a Shift_JIS file with Japanese keys intact', async ({ db }) => {
    const { loader } = await db.open();
    const sjisKey = Buffer.from([0x92, 0x8d, 0x95, 0xb6, 0x2d, 0x88, 0xeb]); // 注文-壱
    const file = writeTestFile(Buffer.concat([Buffer.from(`${HEADER}\r\n`), sjisKey, Buffer.from(',1,2026-01-01,1,JPY\r\n')]));
    const report = await loader.load([file], { encoding: 'shift_jis' });
    expect(report.exitCode).toBe(0);
    expect(await db.sql('SELECT source_key FROM orders')).toEqual([{ source_key: '注文-壱' }]);
  });
});
