/**
 * A quote inside an unquoted field is data, in the built-in format (no profile), in
 * UTF-8 and in Shift_JIS; and a CSV error that concerns one line (a record too large) rejects
 * that line with its file line number and text, and the file is read on, in every encoding.
 * Before: `5"ディスプレイ` in an unused column lost its order line in UTF-8 and stopped a
 * Shift_JIS file at that line (exit 1, the rest unread).
 */
import { expect } from 'vitest';
import type { TestDatabase } from '../support/databases.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, writeTestFile } from '../support/files.js';

/** The text in Shift_JIS (TextEncoder writes only UTF-8): the few characters these files use. */
const SJIS: Record<string, number[]> = {
  注: [0x92, 0x8d],
  文: [0x95, 0xb6],
  デ: [0x83, 0x66],
  ィ: [0x83, 0x42],
  ス: [0x83, 0x58],
  プ: [0x83, 0x76],
  レ: [0x83, 0x8c],
  イ: [0x83, 0x43],
};
function shiftJis(text: string): Buffer {
  const bytes: number[] = [];
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x80) bytes.push(code);
    else {
      const sjis = SJIS[ch];
      if (sjis === undefined) throw new Error(`no Shift_JIS bytes for ${ch} in this test`);
      bytes.push(...sjis);
    }
  }
  return Buffer.from(bytes);
}

// line 2: a stray quote in a column not loaded; 3: in the key; 4: in the amount (PARSE_AMOUNT,
// staged ERROR under its key); 5: a quoted field whose closing quote is followed by text, not
// loaded; 6: a line over the largest record (1,048,576 characters): CSV_MAX_RECORD_SIZE,
// rejected alone; 7: read on after it
const LINES = [
  `${HEADER},product`,
  'Q-1,1,2026-12-01,100,JPY,5"ディスプレイ',
  'Q-"2",2,2026-12-01,200,JPY,',
  'Q-3,3,2026-12-01,3"00,JPY,',
  'Q-4,4,2026-12-01,400,JPY,"27" 注文',
  `Q-5,5,2026-12-01,500,JPY,${'x'.repeat(1_100_000)}`,
  'Q-6,6,2026-12-01,600,JPY,"a ""quoted"" name"',
];

interface Logged {
  line_no: number;
  error_code: string;
  source_key: string | null;
  raw_record: string | null;
}
const errorLog = (db: TestDatabase) =>
  db.sql<Logged>('SELECT line_no, error_code, source_key, raw_record FROM order_bulk_error ORDER BY line_no');

forEachTarget('stray quotes and line-local CSV errors in the built-in format on $kind', () => {
  for (const encoding of ['utf-8', 'shift_jis'] as const) {
    targetTest(
      `${encoding}: a quote inside an unquoted field is data; a record too large is rejected alone and the rest loads`,
      async ({ db }) => {
        const { loader } = await db.open();
        const text = `${LINES.join('\r\n')}\r\n`;
        const file = writeTestFile(encoding === 'utf-8' ? Buffer.from(text, 'utf8') : shiftJis(text));
        const report = await loader.load([file], { encoding });
        expect(report.aborted ?? null).toBeNull();
        expect(report.exitCode).toBe(2);
        expect(report.files[0]?.counts).toMatchObject({ read: 6, rejected: 2 });
        expect(await db.sql('SELECT source_key, amount::text AS amount FROM orders ORDER BY source_key')).toEqual([
          { source_key: 'Q-"2"', amount: '200.00' },
          { source_key: 'Q-1', amount: '100.00' },
          { source_key: 'Q-4', amount: '400.00' },
          { source_key: 'Q-6', amount: '600.00' },
        ]);
        const log = await errorLog(db);
        expect(log.map((r) => [r.line_no, r.error_code, r.source_key])).toEqual([
          [4, 'PARSE_AMOUNT', 'Q-3'],
          [6, 'CSV_MAX_RECORD_SIZE', null],
        ]);
        expect(log[0]?.raw_record).toBe('Q-3,3,2026-12-01,3"00,JPY,');
        expect(log[1]?.raw_record?.startsWith('Q-5,5,2026-12-01,500,JPY,xxxx')).toBe(true);
        expect(await db.sql("SELECT process_status FROM order_stage WHERE source_key = 'Q-3'")).toEqual([{ process_status: 'ERROR' }]);
      },
    );
  }
});
