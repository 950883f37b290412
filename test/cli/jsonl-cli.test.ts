/**
 * JSON Lines (`format: jsonl`) through the CLI on PGlite and on server PostgreSQL (when
 * ORDER_LOADER_TEST_PG is set): the example profile loads end to end with numbers as written (a
 * 20-digit id, 0.10 kept as an attribute); lines that are not JSON, not an object or lack a
 * mapped path are rejected with their line number and text in the error log and in `errors`,
 * the rest loads; `--dry-run` writes nothing; a gzip file reads the same.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-run.js';
import { cliTargets, expectNothingWritten, type CliDb } from '../support/cli-targets.js';
import { tempDir } from '../support/files.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const PROFILE = 'examples/profiles/web-orders.yaml';
const EXAMPLE = 'examples/profiles/web-orders.jsonl';
const ORDERS =
  "SELECT source_key, customer_id::text AS customer_id, to_char(order_date, 'YYYY-MM-DD') AS order_date, amount::text AS amount, currency, attributes::text AS attributes FROM orders ORDER BY source_key";

const BAD = [
  '{"id": "B-1", "customer": {"id": 7}, "placed_at": "2026-12-04", "total": {"amount": 5.25, "currency": "EUR"}}',
  '{"id": "B-2", "customer": {"id": 7}, "placed_at": "2026-12-04", "total": {"amount": 1,}}',
  '["B-3", 7]',
  '{"id": "B-4", "customer": {"id": 7}, "placed_at": "2026-12-04", "total": {"currency": "EUR"}}',
  '',
  '{"id": "B-6", "customer": {"id": 8}, "placed_at": "2026-12-05", "total": {"amount": "12.00", "currency": "USD"}}',
];

describe.skipIf(unavailable(NEEDS.cli)).each(cliTargets('jsonl'))('JSON Lines through the CLI on $kind', (target) => {
  let db: CliDb | undefined;
  afterEach(async () => {
    await db?.dispose();
    db = undefined;
  });

  it('the example loads end to end: numbers as written, the other properties kept as attributes; a reload changes nothing', async () => {
    db = await target.create();
    const first = await runCli(['load', '--profile', PROFILE, EXAMPLE, '--db', db.url]);
    expect(first.code, first.stderr).toBe(0);
    const rows = await db.sql<Record<string, string | null>>(ORDERS);
    expect(rows.map((r) => [r.source_key, r.customer_id, r.order_date, r.amount, r.currency])).toEqual([
      ['10000000000000000001', '1001', '2026-12-01', '1234.50', 'EUR'],
      ['W-1002', '1002', '2026-12-02', '0.10', 'USD'],
      ['W-1003', '1003', '2026-12-03', '99.00', 'JPY'],
    ]);
    // 0.10 through a binary float would be 0.1; the nested lines as JSON text; a null property is no attribute
    expect(JSON.parse(rows[0]?.attributes ?? '')).toEqual({ channel: 'web', weight_kg: '0.10', lines: '[{"sku":"A-1","qty":2}]' });
    expect(rows[2]?.attributes ?? null).toBeNull();
    const again = await runCli(['load', '--profile', PROFILE, EXAMPLE, '--db', db.url]);
    expect(again.code, again.stderr).toBe(0);
    expect(await db.sql(ORDERS)).toEqual(rows);
  });

  it('bad lines are rejected with their line number and text, in the error log and in `errors`; the rest loads (also gzip)', async () => {
    db = await target.create();
    const dir = tempDir();
    const file = join(dir, 'bad.jsonl.gz');
    writeFileSync(file, gzipSync(`${BAD.join('\n')}\n`));
    const result = await runCli(['load', '--profile', PROFILE, file, '--db', db.url]);
    expect(result.code, result.stderr).toBe(2);
    expect(await db.sql('SELECT source_key, amount::text AS amount FROM orders ORDER BY 1')).toEqual([
      { source_key: 'B-1', amount: '5.25' },
      { source_key: 'B-6', amount: '12.00' },
    ]);
    expect(await db.sql('SELECT line_no::int AS line_no, error_code, raw_record FROM order_bulk_error ORDER BY line_no')).toEqual([
      { line_no: 2, error_code: 'PARSE_JSON', raw_record: BAD[1] },
      { line_no: 3, error_code: 'PARSE_JSON_NOT_OBJECT', raw_record: BAD[2] },
      { line_no: 4, error_code: 'PARSE_JSON_PATH', raw_record: BAD[3] },
    ]);
    const errors = await runCli(['errors', '--format', 'csv', '--db', db.url]);
    expect(errors.code, errors.stderr).toBe(0);
    const lines = errors.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^source_key,customer_id,order_date,amount,currency,error_code,error_message,line_no,/);
    // the canonical five columns read back from the line (what it has of them), its line number and code
    expect(lines.find((l) => l.includes('PARSE_JSON_PATH'))).toMatch(
      /^B-4,7,2026-12-04,,EUR,PARSE_JSON_PATH,.*path ""total\.amount"".*,4,/,
    );
    expect(lines.find((l) => l.includes('PARSE_JSON,'))).toMatch(/^,,,,,PARSE_JSON,.*,2,/);
  });

  it('--dry-run reads and checks every line and writes nothing', async () => {
    db = await target.create();
    const dir = tempDir();
    const file = join(dir, 'orders.ndjson');
    writeFileSync(file, `${readFileSync(EXAMPLE, 'utf8')}${BAD[2] ?? ''}\n`);
    const result = await runCli(['load', '--dry-run', '--profile', PROFILE, file, '--db', db.url]);
    expect(result.stdout + result.stderr).toMatch(/PARSE_JSON_NOT_OBJECT|not an object/);
    await expectNothingWritten(db);
  });
});

describe.skipIf(unavailable(NEEDS.cli))('preview of a JSON Lines file', () => {
  it('shows each field as found at its path, numbers as written, and a bad line as rejected with its number', async () => {
    const file = join(tempDir(), 'orders.jsonl');
    writeFileSync(file, `${readFileSync(EXAMPLE, 'utf8')}${BAD[3] ?? ''}\n`);
    const result = await runCli(['preview', '--profile', PROFILE, file, '--json']);
    expect(result.code, result.stderr).toBe(2); // a line would be rejected
    const shown = JSON.parse(result.stdout) as {
      lines: Array<{ line: number; kind: string; fields?: Record<string, { raw: string | null }> | null }>;
    };
    expect(shown.lines.map((l) => [l.line, l.kind, l.fields?.source_key?.raw ?? null, l.fields?.amount?.raw ?? null])).toEqual([
      [1, 'stage', '10000000000000000001', '1234.50'],
      [2, 'stage', 'W-1002', '0.1'],
      [3, 'stage', 'W-1003', '99'],
      [4, 'reject', null, null],
    ]);
  });
});
