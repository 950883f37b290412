/**
 * A run reads each file's bytes once as it found them (src/input/opened-file.ts): its identity,
 * its pre-read of repeated keys and its staging read the same descriptor, to the size taken when
 * it was first read. Lines a writer appends while the file is loaded are left for the next run
 * ("loaded its first S bytes; run again for the rest", exit 2, the file kept), which reads the
 * whole file: for every key, orders holds the last valid line in load order.
 */
import { appendFileSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'vitest';
import type { LoadReport } from '../../src/index.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, tempDir, writeTestFile } from '../support/files.js';

const ORDERS = `${HEADER}\nG1,1,2026-01-01,100.00,JPY\nG2,2,2026-01-01,2,JPY\nG3,3,2026-01-01,3,JPY\n`;
/** Appended while the first batch is staged: a new key, and G1 again without its amount (staged ERROR). */
const APPENDED = 'G4,4,2026-01-01,4,JPY\nG1,1,2026-01-01,,JPY\n';

forEachTarget('a file that grows while it is loaded, on $kind', () => {
  for (const command of ['load', 'stage'] as const) {
    targetTest(`${command}: its first bytes are loaded, the rest by the next run; the last valid line of a key wins`, async ({ db }) => {
      const { loader } = await db.open();
      const archive = tempDir();
      const file = writeTestFile(ORDERS);
      const size = statSync(file).size;
      let appended = false;
      const grow = (): void => {
        if (appended) return;
        appended = true;
        appendFileSync(file, APPENDED);
      };
      const first: LoadReport = await loader[command]([file], { batchSize: 1, archiveDir: archive, onStageProgress: grow });
      expect(appended).toBe(true);
      expect(first.files[0]?.counts.read).toBe(3);
      const reason = `${file}: loaded its first ${size} bytes; run again for the rest (the file grew to ${size + APPENDED.length} bytes while it was loaded)`;
      expect(first.notRead).toEqual([{ file, reason }]);
      expect(first.exitCode).toBe(2);
      expect(first.aborted).toBeNull();
      // kept where it is, for the next run
      expect(existsSync(file)).toBe(true);
      expect(readdirSync(archive)).toEqual([]);
      if (command === 'stage') await loader.process();
      expect(await db.sql('SELECT source_key, amount FROM orders ORDER BY source_key')).toEqual([
        { source_key: 'G1', amount: '100.00' },
        { source_key: 'G2', amount: '2.00' },
        { source_key: 'G3', amount: '3.00' },
      ]);

      const second = await loader.load([file], { batchSize: 1, archiveDir: archive });
      expect(second.notRead).toEqual([]);
      // G1's last line has no amount: its stage row is ERROR, orders keeps the value it had before the run
      expect(second.exitCode).toBe(2);
      expect(await db.sql('SELECT source_key, amount FROM orders ORDER BY source_key')).toEqual([
        { source_key: 'G1', amount: '100.00' },
        { source_key: 'G2', amount: '2.00' },
        { source_key: 'G3', amount: '3.00' },
        { source_key: 'G4', amount: '4.00' },
      ]);
      expect(await db.sql("SELECT process_status, line_no FROM order_stage WHERE source_key = 'G1'")).toEqual([
        { process_status: 'ERROR', line_no: 6 },
      ]);
      expect(existsSync(file)).toBe(false);
      expect(readdirSync(archive)).toHaveLength(1);
    });
  }

  targetTest('a last line cut by the writer (the file grew meanwhile) is not read: the line ends with the next run', async ({ db }) => {
    const { loader } = await db.open();
    const dir = tempDir();
    const file = join(dir, 'cut.csv');
    // the writer stopped in the middle of G2's line, then goes on while the load reads the file
    // (more than two chunks of 256 KiB: the last is read after the first batch is staged)
    const lines = Array.from({ length: 30_000 }, (_, i) => `K${i},1,2026-01-01,1,JPY\n`).join('');
    appendFileSync(file, `${HEADER}\n${lines}G1,1,2026-01-01,1,JPY\nG2,2,2026-01-01,2`);
    let appended = false;
    const first = await loader.load([file], {
      batchSize: 1000,
      onStageProgress: () => {
        if (appended) return;
        appended = true;
        appendFileSync(file, '0.50,JPY\n');
      },
    });
    expect(appended).toBe(true);
    expect(first.files[0]?.counts.read).toBe(30_001);
    expect(first.exitCode).toBe(2);
    const g = "SELECT source_key, amount FROM orders WHERE source_key LIKE 'G%' ORDER BY source_key";
    expect(await db.sql(g)).toEqual([{ source_key: 'G1', amount: '1.00' }]);
    const second = await loader.load([file], { batchSize: 1000 });
    expect(second.exitCode).toBe(0);
    expect(await db.sql(g)).toEqual([
      { source_key: 'G1', amount: '1.00' },
      { source_key: 'G2', amount: '20.50' },
    ]);
    expect(await db.sql('SELECT count(*) AS n FROM orders')).toEqual([{ n: 30_002 }]);
  });
});

/** About 3 MiB of orders (6,000 lines, each with a note of 500 random hex digits: a column not loaded), gzipped: it compresses about twice. */
function ordersGzip(): { path: string; ratio: number } {
  const lines = Array.from({ length: 6_000 }, (_, i) => `Z${i},${i + 1},2026-01-01,${i}.50,JPY,${randomBytes(250).toString('hex')}\n`);
  const content = Buffer.from(`${HEADER},note\n${lines.join('')}`);
  const gz = gzipSync(content, { level: 9 });
  const path = join(tempDir(), 'orders.csv.gz');
  writeFileSync(path, gz);
  return { path, ratio: content.length / gz.length };
}

forEachTarget('a gzip file that inflates past --max-inflate, on $kind', () => {
  targetTest('is refused at the line where the cap is passed, said as such; the default lets an order file through', async ({ db }) => {
    const { loader } = await db.open();
    const { path, ratio } = ordersGzip();
    expect(ratio).toBeGreaterThan(1.5);
    expect(ratio).toBeLessThan(3);
    const capped = await loader.load([path], { maxInflate: 1 });
    expect(capped.exitCode).toBe(1);
    expect(capped.aborted).toMatch(
      /: line \d+: the gzip data inflates to more than 1 times its size \(\d+ bytes of content from \d+ compressed\): refused \(--max-inflate sets the limit\)/,
    );
    const stopped = capped.files[0]?.stoppedAt?.line ?? 0;
    // read up to the cap (its first MiB and the compressed bytes read), not past it
    expect(stopped).toBeGreaterThan(2_000);
    expect(stopped).toBeLessThan(6_000);
    expect(await db.sql("SELECT error_code FROM order_bulk_error WHERE error_code LIKE 'GZIP%'")).toEqual([
      { error_code: 'GZIP_INFLATE_LIMIT' },
    ]);
    // the same file with the default cap: another identity (no refusal in it), loaded whole
    const loaded = await loader.load([path]);
    expect(loaded.exitCode).toBe(0);
    expect(await db.sql('SELECT count(*) AS n FROM orders')).toEqual([{ n: 6_000 }]);
  });
});
