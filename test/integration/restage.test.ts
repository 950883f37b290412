import { expect } from 'vitest';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, writeTestFile } from '../support/files.js';

/** Two orders whose keys are Shift_JIS (注文-壱, 注文-弐): not valid UTF-8. */
function shiftJisFile(): string {
  const key = (last: number[]) => Buffer.from([0x92, 0x8d, 0x95, 0xb6, 0x2d, ...last]);
  return writeTestFile(
    Buffer.concat([
      Buffer.from(`${HEADER}\r\n`),
      key([0x88, 0xeb]),
      Buffer.from(',1,2026-01-01,1,JPY\r\n'),
      key([0x93, 0xf3]),
      Buffer.from(',2,2026-01-02,2,JPY\r\n'),
    ]),
    'sjis.csv',
  );
}

forEachTarget('staging a file again on $kind', () => {
  targetTest('the encoding and the delimiter belong to the identity of a staged file; --restage stages it again', async ({ db }) => {
    const { loader } = await db.open();
    // the same bytes read as UTF-8 and as Shift_JIS are two files: staged as a new load, not skipped
    const ascii = writeTestFile(`${HEADER}\nA-1,1,2026-01-01,1,JPY\n`, 'ascii.csv');
    const asUtf8 = await loader.load([ascii]);
    const asSjis = await loader.load([ascii], { encoding: 'shift_jis' });
    expect(asSjis.files[0]).toMatchObject({ skipped: null, counts: { read: 1, unchanged: 1 } });
    expect(asSjis.files[0]?.loadId).not.toBe(asUtf8.files[0]?.loadId);
    await db.sql('DELETE FROM orders');
    await db.sql('DELETE FROM order_stage');

    const file = shiftJisFile();
    // read as UTF-8 (the default): refused before anything is staged, naming the option to use
    const runsBefore = await db.sql('SELECT count(*) AS n FROM load_run');
    await expect(loader.load([file])).rejects.toThrow(
      `${file}: not UTF-8 (byte 0x92 at offset ${HEADER.length + 2}, line 2); it reads as Shift_JIS: load it with --encoding shift_jis`,
    );
    expect(await db.sql('SELECT count(*) AS n FROM load_run')).toEqual(runsBefore);
    expect(await db.sql('SELECT count(*) AS n FROM order_bulk_error')).toEqual([{ n: 0 }]);

    const right = await loader.load([file], { encoding: 'shift_jis' });
    expect(right.exitCode).toBe(0);
    expect(right.files[0]?.skipped).toBeNull();
    expect(right.files[0]?.counts).toMatchObject({ read: 2, inserted: 2, rejected: 0 });
    expect(await db.sql('SELECT source_key, process_status FROM order_stage ORDER BY source_key')).toEqual([
      { source_key: '注文-壱', process_status: 'DONE' },
      { source_key: '注文-弐', process_status: 'DONE' },
    ]);

    // the same file read the same way again: skipped, and it says how to stage it anyway
    const same = await loader.load([file], { encoding: 'shift_jis' });
    expect(same.exitCode).toBe(0);
    expect(same.files[0]?.skipped).toMatch(/already staged by load \d+ \(same sha256, encoding and delimiter\).*--restage/);
    expect(same.files[0]?.loadId).toBe(right.files[0]?.loadId);

    // --restage: staged again as a new load; its rows are unchanged, orders stays as it was
    const before = await db.sql('SELECT source_key, amount, currency FROM orders ORDER BY source_key');
    const again = await loader.load([file], { encoding: 'shift_jis', restage: true });
    expect(again.exitCode).toBe(0);
    expect(again.files[0]?.skipped).toBeNull();
    expect(again.files[0]?.loadId).not.toBe(right.files[0]?.loadId);
    expect(again.files[0]?.counts).toMatchObject({ read: 2, inserted: 0, updated: 0, unchanged: 2, rejected: 0 });
    expect(await db.sql('SELECT source_key, amount, currency FROM orders ORDER BY source_key')).toEqual(before);
    expect(before).toHaveLength(2);
  });

  targetTest('records how a run read the file; the same reading again is skipped', async ({ db }) => {
    const { loader } = await db.open();
    const file = writeTestFile(`${HEADER.replaceAll(',', ';')}\nD-1;1;2026-01-01;5;EUR\n`);
    // with ',' the header has one unknown column: the file is refused before anything is staged
    await expect(loader.load([file])).rejects.toThrow();
    const first = await loader.load([file], { delimiter: ';' });
    expect(first.exitCode).toBe(0);
    const same = await loader.load([file], { delimiter: ';' });
    expect(same.files[0]?.skipped).toContain('already staged');
    // the run records how it read the file
    const runs = await loader.runs(1);
    expect(runs[0]?.events.find((e) => e.event === 'invoked')?.detail).toMatchObject({ encoding: 'utf-8', delimiter: ';' });
  });
});
