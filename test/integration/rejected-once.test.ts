/**
 * A line rejected before it had a stage row is shown by `errors` as the latest load of the same
 * file bytes that read it: a file without byte offsets (Shift_JIS, UTF-16) interrupted and loaded
 * again resumes its load after the lines it committed (each rejected line logged once); staged
 * again with --restage, it is read again from line 1 as a new load, and each rejected line is
 * listed once. A later load interrupted before the line does not hide it. The error log
 * keeps every row.
 */
import { expect } from 'vitest';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, writeTestFile } from '../support/files.js';

/** 注文 in Shift_JIS: the keys are not ASCII, so the file is only read right as Shift_JIS. */
const CHUMON = [0x92, 0x8d, 0x95, 0xb6];

/**
 * `count` lines, keys 注文-1..; every line whose number (1-based among the data lines) is in
 * `short` has a field too few (PARSE_FIELD_COUNT, logged without a stage row). CRLF line ends.
 */
function shiftJisFile(count: number, short: number[], name: string): string {
  const lines = Array.from({ length: count }, (_, i) => {
    const n = i + 1;
    const rest = short.includes(n) ? `,${n},2026-01-01,${n}\r\n` : `,${n},2026-01-01,${n},JPY\r\n`;
    return Buffer.concat([Buffer.from(CHUMON), Buffer.from(`-${n}${rest}`)]);
  });
  return writeTestFile(Buffer.concat([Buffer.from(`${HEADER}\r\n`), ...lines]), name);
}

/** The export's rejected lines (PARSE phase) as [load, file line]. */
async function rejected(loader: { errors: () => Promise<Array<{ phase: string | null; loadId: number | null; lineNo: number | null }>> }) {
  return (await loader.errors()).filter((e) => e.phase === 'PARSE').map((e) => [e.loadId, e.lineNo]);
}

forEachTarget('each rejected line once in the errors export, on $kind', () => {
  targetTest('a Shift_JIS file interrupted while staging and loaded again: each rejected line is listed once', async ({ db }) => {
    const { loader } = await db.open();
    // data lines 3 and 8 (file lines 4 and 9) are short; batches of 3 lines
    const path = shiftJisFile(9, [3, 8], 'killed.csv');
    const controller = new AbortController();
    const first = await loader.stage([path], {
      encoding: 'shift_jis',
      batchSize: 3,
      signal: controller.signal,
      onStageProgress: () => controller.abort(),
    });
    expect(first.aborted).toContain('interrupted while staging');
    const firstLoad = first.files[0]!.loadId;
    expect(await rejected(loader)).toEqual([[firstLoad, 4]]);

    const rerun = await loader.load([path], { encoding: 'shift_jis', batchSize: 3 });
    // no byte offsets: the same load, read from line 1 and resumed after the lines it committed
    expect(rerun.files[0]?.loadId).toBe(firstLoad);
    expect(rerun.files[0]?.resumedAt).toEqual({ line: 4, byte: null });
    expect(rerun.files[0]?.counts).toMatchObject({ read: 9, rejected: 2 });
    // each rejected line logged once
    expect(await db.sql('SELECT load_id, line_no FROM order_bulk_error WHERE stage_id IS NULL ORDER BY error_id')).toEqual([
      { load_id: firstLoad, line_no: 4 },
      { load_id: firstLoad, line_no: 9 },
    ]);
    expect(await db.sql('SELECT count(*) AS n FROM orders')).toEqual([{ n: 7 }]);
  });

  targetTest('a UTF-16 file interrupted while staging and loaded again: resumed, each rejected line logged once', async ({ db }) => {
    const { loader } = await db.open();
    // data lines 2 and 7 have a field too few; batches of 2 lines; a BOM says UTF-16LE
    const lines = Array.from({ length: 8 }, (_, i) =>
      i === 1 || i === 6 ? `U-${i},${i + 1},2026-01-01,1` : `U-${i},${i + 1},2026-01-01,1,JPY`,
    );
    const text = `${HEADER}\r\n${lines.join('\r\n')}\r\n`;
    const path = writeTestFile(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]), 'utf16.csv');
    const controller = new AbortController();
    const first = await loader.stage([path], { batchSize: 2, signal: controller.signal, onStageProgress: () => controller.abort() });
    expect(first.aborted).toContain('interrupted while staging');
    const firstLoad = first.files[0]!.loadId;
    const rerun = await loader.load([path], { batchSize: 2 });
    expect(rerun.files[0]?.loadId).toBe(firstLoad);
    expect(rerun.files[0]?.resumedAt).toEqual({ line: 3, byte: null });
    expect(rerun.exitCode).toBe(2);
    expect(await db.sql('SELECT load_id, line_no FROM order_bulk_error WHERE stage_id IS NULL ORDER BY error_id')).toEqual([
      { load_id: firstLoad, line_no: 3 },
      { load_id: firstLoad, line_no: 8 },
    ]);
    expect(await db.sql('SELECT count(*) AS n FROM orders')).toEqual([{ n: 6 }]);
  });

  targetTest('--restage of a file: each rejected line is listed once, as the restaging load read it', async ({ db }) => {
    const { loader } = await db.open();
    const path = shiftJisFile(6, [2, 5], 'restage.csv');
    const loaded = await loader.load([path], { encoding: 'shift_jis' });
    const firstLoad = loaded.files[0]!.loadId;
    expect(await rejected(loader)).toEqual([
      [firstLoad, 3],
      [firstLoad, 6],
    ]);
    const again = await loader.load([path], { encoding: 'shift_jis', restage: true });
    const againLoad = again.files[0]!.loadId;
    expect(againLoad).not.toBe(firstLoad);
    expect(await rejected(loader)).toEqual([
      [againLoad, 3],
      [againLoad, 6],
    ]);
    // a plain rerun skips the file: it reads nothing, and hides nothing of the load it names
    const skipped = await loader.load([path], { encoding: 'shift_jis' });
    expect(skipped.files[0]?.skipped).toContain('already staged');
    expect(await rejected(loader)).toEqual([
      [againLoad, 3],
      [againLoad, 6],
    ]);
    expect(await db.sql('SELECT count(*) AS n FROM order_bulk_error WHERE stage_id IS NULL')).toEqual([{ n: 4 }]);
  });

  targetTest('a later load interrupted before a rejected line does not hide its earlier rejection', async ({ db }) => {
    const { loader } = await db.open();
    // file lines 3 and 9 are short; the restage commits lines 2..4 (one batch of 3), then stops
    const path = shiftJisFile(9, [2, 8], 'partial.csv');
    const loaded = await loader.load([path], { encoding: 'shift_jis', batchSize: 3 });
    const firstLoad = loaded.files[0]!.loadId;
    const controller = new AbortController();
    const partial = await loader.stage([path], {
      encoding: 'shift_jis',
      batchSize: 3,
      restage: true,
      signal: controller.signal,
      onStageProgress: () => controller.abort(),
    });
    expect(partial.aborted).toContain('interrupted while staging');
    const partialLoad = partial.files[0]!.loadId;
    expect(partialLoad).not.toBe(firstLoad);
    const [checkpoint] = await db.sql<{ detail: string }>(
      "SELECT detail FROM load_run_event WHERE event = 'staged_checkpoint' AND run_id = $1 ORDER BY seq DESC",
      [partial.files[0]!.runId],
    );
    expect((JSON.parse(checkpoint!.detail) as { line: number }).line).toBe(4);
    // line 3: read again by the restage; line 9: the restage never reached it, the first load's reading stays
    expect(await rejected(loader)).toEqual([
      [firstLoad, 9],
      [partialLoad, 3],
    ]);
    // a later load of other bytes, staged completely, read none of this file's lines
    const other = await loader.load([shiftJisFile(10, [], 'other.csv')], { encoding: 'shift_jis' });
    expect(other.files[0]?.counts).toMatchObject({ read: 10, rejected: 0 });
    expect(await rejected(loader)).toEqual([
      [firstLoad, 9],
      [partialLoad, 3],
    ]);
  });

  targetTest('a file loaded with the wrong encoding, then the right one: the wrong reading of its lines drops out', async ({ db }) => {
    const { loader } = await db.open();
    const path = shiftJisFile(4, [3], 'wrong.csv');
    // Shift_JIS bytes read as EUC-JP: 0x92 is no EUC-JP lead byte, every line has a replaced byte
    const wrong = await loader.load([path], { encoding: 'euc-jp' });
    const wrongLoad = wrong.files[0]!.loadId;
    expect(wrong.files[0]?.counts).toMatchObject({ read: 4, rejected: 4 });
    // logged without a usable key (the key holds a replaced byte, or the field count is wrong)
    expect(await db.sql(`SELECT count(*) AS n FROM order_bulk_error WHERE load_id = ${wrongLoad} AND source_key IS NULL`)).toEqual([
      { n: 4 },
    ]);
    expect((await rejected(loader)).length).toBe(4);

    const right = await loader.load([path], { encoding: 'shift_jis' });
    const rightLoad = right.files[0]!.loadId;
    expect(right.files[0]?.counts).toMatchObject({ read: 4, inserted: 3, rejected: 1 });
    expect(await rejected(loader)).toEqual([[rightLoad, 4]]);
    expect(await db.sql(`SELECT count(*) AS n FROM order_bulk_error WHERE load_id = ${wrongLoad}`)).toEqual([{ n: 4 }]);
  });
});
