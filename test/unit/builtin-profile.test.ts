/**
 * The built-in format written as a profile (src/input/profile/builtin.ts), without a database: it
 * is the profile file its documentation gives (the same content hash), and a file read through
 * it gives the records the built-in reader gives (test/integration/profiles.test.ts compares the
 * staged rows on a database).
 */
import { describe, expect, it } from 'vitest';
import { openOrderFile, type FileItem, type OrderFileOptions } from '../../src/input/order-file.js';
import { parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';
import { writeTestFile } from '../support/files.js';

/** The built-in format as a profile file, written as a user would (README, "Load profiles"). */
const AS_WRITTEN = `version: 1
name: builtin
format: csv
encoding: utf-8
delimiter: ","
header: true
columns:
  source_key: { column: source_key }
  customer_id: { column: customer_id }
  order_date: { column: order_date, date: "YYYY-MM-DD" }
  amount: { column: amount }
  currency: { column: currency }
`;

/**
 * The module, loaded within each test: its profile is built when it loads (profileSchema.parse),
 * and a module that throws while a test file is collected fails no test in StrykerJS's eyes (its
 * vitest runner counts failed tests only), so a profile the schema refuses would read as a
 * surviving mutant (docs/mutation.md, "Groups").
 */
const loadBuiltin = () => import('../../src/input/profile/builtin.js');

async function read(path: string, profile?: LoadProfile): Promise<Array<Record<string, unknown>>> {
  const options: OrderFileOptions = { encoding: 'utf-8', delimiter: ',', ...(profile === undefined ? {} : { profile }) };
  const file = await openOrderFile(path, options);
  const items: FileItem[] = [];
  for await (const item of file.items) items.push(item);
  return items.map((i) =>
    i.kind === 'record' ? { kind: i.kind, lineNo: i.lineNo, fields: i.fields, endByte: i.endByte } : { kind: i.kind, lineNo: i.lineNo },
  );
}

describe('the built-in format as a profile', () => {
  it('is the profile file that writes it out: the same spec, the same content hash, named builtin', async () => {
    const { BUILTIN_PROFILE, BUILTIN_PROFILE_ID } = await loadBuiltin();
    const written = parseProfileText(AS_WRITTEN, 'builtin.yaml', 'other');
    expect(BUILTIN_PROFILE.spec).toEqual(written.spec);
    expect(BUILTIN_PROFILE.sha256).toBe(written.sha256);
    expect(BUILTIN_PROFILE.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(BUILTIN_PROFILE.name).toBe('builtin');
    expect(written.name).toBe('builtin');
    // a load of the built-in format records this id, not the profile's hash
    expect(BUILTIN_PROFILE_ID).toBe('builtin');
    expect(BUILTIN_PROFILE_ID).not.toBe(BUILTIN_PROFILE.sha256);
  });

  it('reads a file as the built-in reader does: header in any order, ISO dates, plain amounts, the problems alike', async () => {
    const path = writeTestFile(
      [
        'currency,amount,order_date,customer_id,source_key',
        'EUR,12.50,2026-12-01,7,K-1',
        'JPY,3,2026-02-29,8,K-2',
        'USD,1,2026-02-28,9,"K,3"',
        'CHF,0.5,2026-13-01,10,K-4',
        'EUR,1,01.12.2026,11,K-5',
        'EUR,1.5,2026-12-01,12,K-6',
        '',
      ].join('\n'),
    );
    const builtin = await read(path);
    const profiled = await read(path, (await loadBuiltin()).BUILTIN_PROFILE);
    expect(profiled).toEqual(builtin);
    expect(profiled).toHaveLength(6);
    expect(profiled[0]).toEqual({
      kind: 'record',
      lineNo: 2,
      fields: { source_key: 'K-1', customer_id: '7', order_date: '2026-12-01', amount: '12.50', currency: 'EUR' },
      endByte: expect.any(Number) as number,
    });
    expect(profiled[2]).toMatchObject({ fields: { source_key: 'K,3' } });
  });

  const refusal = async (content: string, profile?: LoadProfile): Promise<string> => {
    try {
      await read(writeTestFile(content), profile);
    } catch (error) {
      return (error as Error).message.replace(/\/\S+\.csv/, 'FILE');
    }
    return 'read';
  };

  it('needs the header: a file without it is refused through the profile as without one', async () => {
    const { BUILTIN_PROFILE } = await loadBuiltin();
    const noHeader = 'K-1,7,2026-12-01,1,EUR\n';
    expect(await refusal(noHeader)).toMatch(/^FILE: line 1: missing required columns source_key, customer_id/);
    expect(await refusal(noHeader, BUILTIN_PROFILE)).toBe(
      'profile builtin: columns.source_key.column: column "source_key" is not in the header of FILE (line 1: K-1, 7, 2026-12-01, 1, EUR)',
    );
  });

  it('reads a semicolon-separated file as one column, as the built-in reader with its default delimiter', async () => {
    const { BUILTIN_PROFILE } = await loadBuiltin();
    const semicolons = 'source_key;customer_id;order_date;amount;currency\nK-1;7;2026-12-01;1;EUR\n';
    expect(await refusal(semicolons)).toMatch(/^FILE: line 1: missing required columns/);
    expect(await refusal(semicolons, BUILTIN_PROFILE)).toBe(
      'profile builtin: columns.source_key.column: column "source_key" is not in the header of FILE (line 1: source_key;customer_id;order_date;amount;currency)',
    );
  });
});
