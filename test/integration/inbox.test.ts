/**
 * Nightly inputs through the library: gzip files resumed and skipped like plain ones, a
 * truncated gzip, a file still being written, and the archive and failed folders.
 */
import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { expandInputs } from '../../src/input/inputs.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, tempDir } from '../support/files.js';
import type { TestDatabase } from '../support/databases.js';

/** 25 orders; line 14 has an amount that is not a number (staged ERROR), line 18 an extra field (rejected). */
function ordersText(): string {
  const lines = Array.from({ length: 25 }, (_, i) => {
    const key = `R-${String(i).padStart(2, '0')}`;
    if (i === 12) return `${key},1,2026-01-01,abc,JPY`;
    if (i === 16) return `${key},1,2026-01-01,1,JPY,extra`;
    return `${key},${i + 1},2026-01-${String(1 + (i % 28)).padStart(2, '0')},${i}.50,JPY`;
  });
  return `${HEADER}\n${lines.join('\n')}\n`;
}

async function outcome(db: TestDatabase) {
  return {
    stage: await db.sql('SELECT source_key, process_status, error_code, amount FROM order_stage ORDER BY source_key'),
    orders: await db.sql('SELECT source_key, customer_id, order_date, amount, currency FROM orders ORDER BY source_key'),
    // ordered by line, not by raw_record: a CLOB on Oracle, which refuses to sort one (ORA-00932)
    errors: await db.sql('SELECT phase, error_code, raw_record FROM order_bulk_error ORDER BY phase, line_no'),
  };
}

forEachTarget('inbox inputs on $kind', (target) => {
  targetTest(
    'a .csv.gz interrupted mid-file resumes at a byte offset of its decompressed content, with the result of a clean load',
    async ({ db }) => {
      const dir = tempDir();
      const gz = join(dir, 'orders.csv.gz');
      writeFileSync(gz, gzipSync(Buffer.from(ordersText())));
      const { loader } = await db.open();
      const controller = new AbortController();
      const first = await loader.stage([gz], { batchSize: 10, signal: controller.signal, onStageProgress: () => controller.abort() });
      expect(first.aborted).toContain('interrupted while staging');
      expect(await db.sql('SELECT count(*) AS n FROM order_stage')).toEqual([{ n: 10 }]);

      const second = await loader.load([gz], { batchSize: 10 });
      expect(second.exitCode).toBe(2);
      const firstTen = ordersText().split('\n').slice(0, 11).join('\n').length + 1;
      // the offset is into the decompressed text (the compressed file is far shorter than that)
      expect(second.files[0]?.resumedAt).toEqual({ line: 11, byte: firstTen });
      expect(second.files[0]?.loadId).toBe(first.files[0]?.loadId);
      expect(second.files[0]?.counts).toMatchObject({ read: 25, inserted: 24, rejected: 2 });
      const resumed = await outcome(db);

      expect(resumed.orders).toHaveLength(23);
      expect(resumed.errors.map((e) => (e as { error_code: string }).error_code).sort()).toEqual(['PARSE_AMOUNT', 'PARSE_FIELD_COUNT']);

      // the same content again: gzip or not, recompressed or not, it is recognised and skipped
      const again = join(dir, 'again.csv');
      writeFileSync(again, ordersText());
      const recompressed = join(dir, 'recompressed.gz');
      writeFileSync(recompressed, gzipSync(Buffer.from(ordersText()), { level: 1 }));
      const reload = await loader.load([gz, again, recompressed]);
      expect(reload.files.map((f) => f.skipped)).toEqual([
        expect.stringContaining('already staged by load'),
        expect.stringContaining('already staged by load'),
        expect.stringContaining('already staged by load'),
      ]);
      expect(reload.files.map((f) => f.loadId)).toEqual([first.files[0]?.loadId, first.files[0]?.loadId, first.files[0]?.loadId]);
      // nothing was staged again
      expect(await outcome(db)).toEqual(resumed);
      expect(reload.files.map((f) => f.counts.read)).toEqual([0, 0, 0]);

      // the same orders loaded clean, uncompressed, on a fresh database: made once this one is
      // given back (one database per test, on every target; Oracle's is one schema)
      await db.dispose({ reuse: true });
      const clean = await target.create();
      try {
        const plain = join(dir, 'orders.csv');
        writeFileSync(plain, ordersText());
        const { loader: cleanLoader } = await clean.open();
        const report = await cleanLoader.load([plain], { batchSize: 10 });
        expect(report.files[0]?.counts).toMatchObject({ read: 25, inserted: 24, rejected: 2 });
        expect(resumed).toEqual(await outcome(clean));
      } finally {
        await clean.dispose();
      }
    },
  );

  targetTest(
    'a truncated .gz: without --failed-dir the run stops (exit 1); with it the file is moved beside its reason (exit 2)',
    async ({ db }) => {
      const dir = tempDir();
      const rows = Array.from({ length: 3000 }, (_, i) => `T-${String(i).padStart(5, '0')},1,2026-01-01,1,JPY`).join('\n');
      const whole = gzipSync(Buffer.from(`${HEADER}\n${rows}\n`));
      const cut = join(dir, 'cut.csv.gz');
      writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
      const good = join(dir, 'good.csv');
      writeFileSync(good, `${HEADER}\nG-1,1,2026-01-01,1,JPY\n`);
      const { loader } = await db.open();

      const stopped = await loader.load([cut]);
      expect(stopped.exitCode).toBe(1);
      expect(stopped.aborted).toMatch(/cut\.csv\.gz: line \d+: the gzip data ends early \(the file is truncated\)/);
      const staged = (await db.sql<{ n: number }>('SELECT count(*) AS n FROM order_stage'))[0]!.n;
      expect(staged).toBeGreaterThan(0);
      expect(staged).toBeLessThan(3000);

      const failedDir = join(dir, 'failed');
      const archiveDir = join(dir, 'archive');
      const report = await loader.load([cut, good], { failedDir, archiveDir, listed: expandInputs([cut, good]).files });
      expect(report.aborted).toBeNull();
      expect(report.exitCode).toBe(2);
      expect(report.unreadable).toEqual([
        { file: cut, reason: expect.stringContaining('the gzip data ends early') as unknown, movedTo: expect.any(String) as unknown },
      ]);
      const moved = report.unreadable[0]!.movedTo!;
      expect(moved).toMatch(/failed\/\d{8}T\d{6}Z-cut\.csv\.gz$/);
      expect(readFileSync(`${moved}.error.txt`, 'utf8')).toMatch(
        /^file: .*cut\.csv\.gz\nmoved: .*\nload: \d+\nreason: line \d+: the gzip data ends early/,
      );
      expect(existsSync(cut)).toBe(false);
      // not read again, nothing staged twice; the good file is loaded and archived
      expect(report.files[0]?.skipped).toContain('could not read this file past line');
      expect((await db.sql<{ n: number }>("SELECT count(*) AS n FROM order_stage WHERE source_key LIKE 'T-%'"))[0]!.n).toBe(staged);
      expect(report.archived.map((a) => a.file)).toEqual([good]);
      expect(readdirSync(archiveDir)).toEqual([`load${report.files[1]!.loadId}-good.csv`]);
      expect(readdirSync(dir).sort()).toEqual(['archive', 'failed']);
    },
  );

  targetTest(
    'a file named on the command line that grows after it was listed is not read: exit 2, never 0 (exit 0 says every named file was loaded)',
    async ({ db }) => {
      const dir = tempDir();
      const a = join(dir, 'a.csv');
      const b = join(dir, 'b.csv');
      writeFileSync(a, `${HEADER}\nA-1,1,2026-01-01,1,JPY\n`);
      writeFileSync(b, `${HEADER}\nB-1,1,2026-01-01,1,JPY\n`);
      const { files } = expandInputs([a, b]);
      const { loader } = await db.open();
      let appended = false;
      const report = await loader.load([a, b], {
        listed: files,
        onStageProgress: () => {
          if (!appended) appendFileSync(b, 'B-2,1,2026-01-01,1,JPY\n');
          appended = true;
        },
      });
      expect(report.aborted).toBeNull();
      expect(report.notRead.map((n) => n.file)).toEqual([b]);
      expect(report.notRead[0]!.reason).toMatch(/b\.csv: still being written \(size \d+ → \d+ bytes since it was listed\)/);
      expect(report.notRead[0]!.commandLine).toBe(true);
      expect(report.exitCode).toBe(2);
      expect(await db.sql('SELECT source_key FROM order_stage ORDER BY source_key')).toEqual([{ source_key: 'A-1' }]);
    },
  );

  targetTest(
    'a file still being written (its size changed since it was listed) is not read, and stays; the others are loaded',
    async ({ db }) => {
      const dir = tempDir();
      writeFileSync(join(dir, 'a.csv'), `${HEADER}\nA-1,1,2026-01-01,1,JPY\n`);
      writeFileSync(join(dir, 'b.csv'), `${HEADER}\nB-1,1,2026-01-01,1,JPY\n`);
      const { files } = expandInputs([dir]);
      const archiveDir = join(dir, 'archive');
      const { loader } = await db.open();
      let appended = false;
      const report = await loader.load(
        files.map((f) => f.path),
        {
          listed: files,
          archiveDir,
          // while a.csv is staged, b.csv grows (an upload still going on)
          onStageProgress: () => {
            if (!appended) appendFileSync(join(dir, 'b.csv'), 'B-2,1,2026-01-01,1,JPY\n');
            appended = true;
          },
        },
      );
      expect(report.aborted).toBeNull();
      expect(report.exitCode).toBe(0);
      expect(report.files.map((f) => f.file)).toEqual([join(dir, 'a.csv')]);
      expect(report.notRead).toEqual([
        {
          file: join(dir, 'b.csv'),
          reason: expect.stringMatching(
            /b\.csv: still being written \(size \d+ → \d+ bytes since it was listed\): skipped this time$/,
          ) as unknown,
        },
      ]);
      expect(await db.sql('SELECT source_key FROM order_stage ORDER BY source_key')).toEqual([{ source_key: 'A-1' }]);
      expect(readdirSync(dir).sort()).toEqual(['archive', 'b.csv']);

      // the next run takes it, complete
      const next = expandInputs([dir]).files;
      const later = await loader.load(
        next.map((f) => f.path),
        { listed: next, archiveDir },
      );
      expect(later.files[0]?.counts).toMatchObject({ read: 2, inserted: 2 });
      expect(readdirSync(dir).sort()).toEqual(['archive']);
    },
  );

  targetTest(
    'an interrupted load leaves its file in the inbox; the run that finishes it archives it under a name that never overwrites',
    async ({ db }) => {
      const dir = tempDir();
      const file = join(dir, 'orders.csv');
      const text = `${HEADER}\n${Array.from({ length: 30 }, (_, i) => `I-${i},1,2026-01-01,1,JPY`).join('\n')}\n`;
      writeFileSync(file, text);
      const archiveDir = join(dir, 'archive');
      const { loader } = await db.open();
      const controller = new AbortController();
      const first = await loader.load([file], {
        archiveDir,
        batchSize: 10,
        signal: controller.signal,
        onStageProgress: () => controller.abort(),
      });
      expect(first.exitCode).toBe(1);
      expect(first.archived).toEqual([]);
      expect(existsSync(file)).toBe(true);

      const second = await loader.load([file], { archiveDir, batchSize: 10 });
      expect(second.aborted).toBeNull();
      expect(second.exitCode).toBe(0);
      const loadId = first.files[0]!.loadId;
      expect(second.archived).toEqual([{ file, movedTo: join(archiveDir, `load${loadId}-orders.csv`) }]);

      // the same file arriving again: skipped (same content), and archived beside the first copy
      writeFileSync(file, text);
      const third = await loader.load([file], { archiveDir });
      expect(third.files[0]?.skipped).toContain('already staged');
      expect(third.archived).toEqual([{ file, movedTo: join(archiveDir, `load${loadId}-2-orders.csv`) }]);
      expect(readdirSync(archiveDir).sort()).toEqual([`load${loadId}-2-orders.csv`, `load${loadId}-orders.csv`]);
    },
  );
});
