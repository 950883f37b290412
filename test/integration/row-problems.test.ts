import { expect } from 'vitest';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, writeTestFile } from '../support/files.js';

forEachTarget('a row with several problems on $kind', () => {
  targetTest('keeps one filterable error_code (the first problem) and names every problem in error_message', async ({ db }) => {
    const { loader } = await db.open();
    const path = writeTestFile(`${HEADER}\nP1,5,2026-01-01,-1,jpy\nP2,x,2026-01-01,,JPY\nP3,5,2026-01-01,1,JPY\n`);
    const report = await loader.load([path]);
    expect(report.exitCode).toBe(2);
    const rows = await db.sql<{ source_key: string; error_code: string | null; error_message: string | null }>(
      'SELECT source_key, error_code, error_message FROM order_stage ORDER BY source_key',
    );
    expect(rows).toEqual([
      {
        source_key: 'P1',
        error_code: 'INVALID_AMOUNT',
        error_message: 'INVALID_AMOUNT: amount must be zero or greater; INVALID_CURRENCY: currency must be three upper-case letters',
      },
      {
        source_key: 'P2',
        error_code: 'PARSE_CUSTOMER_ID',
        error_message: 'PARSE_CUSTOMER_ID: customer_id is not an integer: "x"; INVALID_AMOUNT: amount is missing',
      },
      { source_key: 'P3', error_code: null, error_message: null },
    ]);
    const logged = await db.sql<{ source_key: string; phase: string; error_code: string }>(
      'SELECT source_key, phase, error_code FROM order_bulk_error ORDER BY source_key',
    );
    expect(logged).toEqual([
      { source_key: 'P1', phase: 'VALIDATE', error_code: 'INVALID_AMOUNT' },
      { source_key: 'P2', phase: 'PARSE', error_code: 'PARSE_CUSTOMER_ID' },
    ]);
    // the code filters as one value
    expect((await loader.errors({ errorCodes: ['INVALID_AMOUNT'] })).map((r) => r.sourceKey)).toEqual(['P1']);
  });
});
