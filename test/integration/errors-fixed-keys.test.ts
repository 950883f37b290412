/**
 * A line rejected before it had a stage row leaves the `errors` export once a later load has
 * made its key DONE; the error log keeps it.
 */
import { expect } from 'vitest';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, writeTestFile } from '../support/files.js';

function fileOf(lines: Array<Buffer | string>, header = HEADER): string {
  return writeTestFile(Buffer.concat([Buffer.from(`${header}\n`), ...lines.flatMap((l) => [Buffer.from(l), Buffer.from('\n')])]));
}

const bad = (key: string) => Buffer.concat([Buffer.from(`${key},7,2026-01-05,100,`), Buffer.from([0xff]), Buffer.from('JP')]);

forEachTarget('errors export after the rejected lines were fixed, on $kind', () => {
  targetTest(
    'a rejected line whose key a later load made DONE drops out; the others stay; the error log keeps every line',
    async ({ db }) => {
      const { loader } = await db.open();
      // K-OLD is DONE before its line is rejected: that line's values never reached the stage
      await loader.load([fileOf(['K-OLD,7,2026-01-05,100,JPY'])]);
      const first = await loader.load([
        fileOf([
          'K-FC,7,2026-01-05,100', // wrong field count: where its key is cannot be told
          bad('K-ENC'), // not UTF-8 (0xff: no Shift_JIS, the file is read)
          'K-NUL,7\u0000,2026-01-05,100,JPY', // NUL byte
          bad('K-LEFT'), // never fixed
          bad('K-INVALID'), // fixed by a line that fails validation
          bad('K-OLD'),
          bad('K-\uFFFD'), // the key itself holds a replaced byte: no usable key
          '7,2026-01-05,100', // wrong field count, no key at all
        ]),
      ]);
      expect(first.files[0]?.counts).toMatchObject({ read: 8, rejected: 8 });
      const firstLoad = first.files[0]!.loadId;
      const listed = async () => (await loader.errors({ loadIds: [firstLoad] })).map((r) => [r.errorCode, r.lineNo]);
      const all = [
        ['PARSE_FIELD_COUNT', 2],
        ['PARSE_ENCODING', 3],
        ['PARSE_NUL_BYTE', 4],
        ['PARSE_ENCODING', 5],
        ['PARSE_ENCODING', 6],
        ['PARSE_ENCODING', 7],
        ['PARSE_ENCODING', 8],
        ['PARSE_FIELD_COUNT', 9],
      ];
      expect(await listed()).toEqual(all);
      // logged with their own key, attached to no stage row (K-OLD's row is another line's)
      expect(
        await db.sql(`SELECT line_no, source_key, stage_id FROM order_bulk_error WHERE load_id = ${firstLoad} ORDER BY line_no`),
      ).toEqual([
        { line_no: 2, source_key: null, stage_id: null },
        { line_no: 3, source_key: 'K-ENC', stage_id: null },
        { line_no: 4, source_key: 'K-NUL', stage_id: null },
        { line_no: 5, source_key: 'K-LEFT', stage_id: null },
        { line_no: 6, source_key: 'K-INVALID', stage_id: null },
        { line_no: 7, source_key: 'K-OLD', stage_id: null },
        { line_no: 8, source_key: null, stage_id: null },
        { line_no: 9, source_key: null, stage_id: null },
      ]);

      const fix = await loader.load([
        fileOf(['K-FC,7,2026-01-05,100,JPY', 'K-ENC,7,2026-01-05,100,JPY', 'K-NUL,7,2026-01-05,100,JPY', 'K-INVALID,7,2026-01-05,-1,JPY']),
      ]);
      expect(fix.files[0]?.tally).toEqual({ DONE: 3, ERROR: 1 });
      expect(await listed()).toEqual([
        ['PARSE_FIELD_COUNT', 2],
        ['PARSE_ENCODING', 5],
        ['PARSE_ENCODING', 6],
        ['PARSE_ENCODING', 7],
        ['PARSE_ENCODING', 8],
        ['PARSE_FIELD_COUNT', 9],
      ]);
      // the whole export: K-INVALID's stage row (ERROR) and the rejected lines left
      expect((await loader.errors()).map((r) => [r.errorCode, r.sourceKey, r.lineNo])).toEqual([
        ['INVALID_AMOUNT', 'K-INVALID', 5],
        ['PARSE_FIELD_COUNT', 'K-FC', 2],
        ['PARSE_ENCODING', 'K-LEFT', 5],
        ['PARSE_ENCODING', 'K-INVALID', 6],
        ['PARSE_ENCODING', 'K-OLD', 7],
        // (the export shows what the line holds where the header says; it was logged without a key)
        ['PARSE_ENCODING', 'K-\uFFFD', 8],
        ['PARSE_FIELD_COUNT', '7', 9],
      ]);
      expect(await db.sql(`SELECT count(*) AS n FROM order_bulk_error WHERE load_id = ${firstLoad}`)).toEqual([{ n: 8 }]);
    },
  );

  targetTest('a key in another column than the first is logged too; none for a line with a wrong field count', async ({ db }) => {
    const { loader } = await db.open();
    const header = 'customer_id,source_key,order_date,amount,currency';
    const first = await loader.load([
      fileOf(
        [
          Buffer.concat([Buffer.from('7,K-2ND,2026-01-05,100,'), Buffer.from([0xff])]), // right count: key K-2ND
          '7,K-SHORT,2026-01-05', // wrong count: its fields may be shifted
        ],
        header,
      ),
    ]);
    const firstLoad = first.files[0]!.loadId;
    expect(await db.sql(`SELECT source_key FROM order_bulk_error WHERE load_id = ${firstLoad} ORDER BY line_no`)).toEqual([
      { source_key: 'K-2ND' },
      { source_key: null },
    ]);
    await loader.load([fileOf(['7,K-2ND,2026-01-05,100,JPY', '7,K-SHORT,2026-01-05,100,JPY'], header)]);
    expect((await loader.errors({ loadIds: [firstLoad] })).map((r) => r.lineNo)).toEqual([3]);
  });
});
