/**
 * A file read as UTF-8 (the default) whose start is Shift_JIS is refused before anything is
 * staged, naming --encoding shift_jis; with --failed-dir it is moved there with that reason and
 * the other files are loaded.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { expandInputs } from '../../src/input/inputs.js';
import { OrderLoader } from '../../src/loader.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, tempDir } from '../support/files.js';

/** 注文-壱 in Shift_JIS, on line 3 (after an ASCII line). */
const sjisContent = Buffer.concat([
  Buffer.from(`${HEADER}\nA-1,1,2026-01-01,1,JPY\n`),
  Buffer.from([0x92, 0x8d, 0x95, 0xb6, 0x2d, 0x88, 0xeb]),
  Buffer.from(',2,2026-01-01,2,JPY\n'),
]);
const offset = `${HEADER}\nA-1,1,2026-01-01,1,JPY\n`.length;
const refusal = (path: string) =>
  `${path}: not UTF-8 (byte 0x92 at offset ${offset}, line 3); it reads as Shift_JIS: load it with --encoding shift_jis`;

forEachTarget('a file that reads as Shift_JIS, loaded as UTF-8, on $kind', () => {
  targetTest('is refused before anything is written; read as Shift_JIS it loads', async ({ db }) => {
    const dir = tempDir();
    const good = join(dir, 'a-good.csv');
    writeFileSync(good, `${HEADER}\nG-1,1,2026-01-01,1,JPY\n`);
    const sjis = join(dir, 'b-sjis.csv');
    writeFileSync(sjis, sjisContent);
    const { loader } = await db.open();
    await expect(loader.load([good, sjis])).rejects.toThrow(refusal(sjis));
    await expect(loader.stage([sjis])).rejects.toThrow(refusal(sjis));
    await expect(OrderLoader.dryRunFiles([sjis])).rejects.toThrow(refusal(sjis));
    expect(await db.sql('SELECT count(*) AS n FROM load_run')).toEqual([{ n: 0 }]);
    expect(await db.sql('SELECT count(*) AS n FROM order_stage')).toEqual([{ n: 0 }]);
    expect(await db.sql('SELECT count(*) AS n FROM order_bulk_error')).toEqual([{ n: 0 }]);

    // gzip: the content is sniffed, its offsets are into the content
    const gz = join(dir, 'c-sjis.csv.gz');
    writeFileSync(gz, gzipSync(sjisContent));
    await expect(loader.load([gz])).rejects.toThrow(refusal(gz));

    const right = await loader.load([sjis], { encoding: 'shift_jis' });
    expect(right.exitCode).toBe(0);
    expect(await db.sql('SELECT source_key FROM orders ORDER BY source_key')).toEqual([{ source_key: 'A-1' }, { source_key: '注文-壱' }]);
  });

  targetTest('with --failed-dir it is moved there with the reason, and the other files are loaded', async ({ db }) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a-good.csv'), `${HEADER}\nG-1,1,2026-01-01,1,JPY\n`);
    const sjis = join(dir, 'b-sjis.csv');
    writeFileSync(sjis, sjisContent);
    const failedDir = join(dir, 'failed');
    const { loader } = await db.open();
    const { files } = expandInputs([dir]);
    const report = await loader.load(
      files.map((f) => f.path),
      { failedDir, listed: files },
    );
    expect(report.exitCode).toBe(2);
    expect(report.unreadable).toEqual([{ file: sjis, reason: refusal(sjis), movedTo: expect.any(String) as unknown }]);
    const moved = report.unreadable[0]!.movedTo!;
    expect(readFileSync(`${moved}.error.txt`, 'utf8')).toContain(`reason: ${refusal(sjis)}`);
    expect(existsSync(sjis)).toBe(false);
    expect(readdirSync(failedDir).sort()).toEqual([
      expect.stringMatching(/-b-sjis\.csv$/),
      expect.stringMatching(/-b-sjis\.csv\.error\.txt$/),
    ]);
    expect(report.files.map((f) => f.file)).toEqual([join(dir, 'a-good.csv')]);
    expect(await db.sql('SELECT source_key FROM orders')).toEqual([{ source_key: 'G-1' }]);
    expect(await db.sql('SELECT count(*) AS n FROM order_bulk_error')).toEqual([{ n: 0 }]);
  });
});
