/**
 * Processing beside staging (the default of `load` on a server database) with the hold rule:
 * keys on more than one line of the run's files are staged HELD, which the claim skips, and
 * released when the run's staging ends (src/pipeline/load.ts, src/input/repeated-keys.ts).
 */
import { describe, expect, it } from 'vitest';
import { serverPgTarget } from '../support/databases.js';
import { NEEDS, unavailable } from '../support/requirements.js';
import { runCli } from '../support/cli-run.js';
import { HEADER, writeTestFile } from '../support/files.js';

const server = serverPgTarget();

/** DUP first with 100.00, `n` unique keys, then DUP again with an empty amount (a parse error: staged ERROR). */
function repeatedKeyFile(n: number): string {
  const lines = [HEADER, 'DUP,1,2026-01-01,100,JPY'];
  for (let i = 0; i < n; i++) lines.push(`K-${i},1,2026-01-01,1,JPY`);
  lines.push('DUP,1,2026-01-01,,JPY');
  return writeTestFile(`${lines.join('\n')}\n`);
}

describe.skipIf(unavailable(NEEDS.server))('load on server PostgreSQL: processing beside staging, keys held', () => {
  it('by default processes while staging, and a key whose last line is rejected never reaches orders with an earlier line', async () => {
    const db = await server!.create();
    try {
      const { loader } = await db.open({ workers: 2 });
      const report = await loader.load([repeatedKeyFile(6000)], { batchSize: 200, chunkSize: 100 });
      expect(report.exitCode).toBe(2);
      expect(await db.sql("SELECT process_status, line_no FROM order_stage WHERE source_key = 'DUP'")).toEqual([
        { process_status: 'ERROR', line_no: 6003 },
      ]);
      expect(await db.sql("SELECT count(*) AS n FROM orders WHERE source_key = 'DUP'")).toEqual([{ n: 0 }]);
      // the default overlapped: rows were processed before the last batch was staged
      expect(
        await db.sql('SELECT count(*) > 0 AS overlapped FROM order_stage WHERE processed_at < (SELECT max(staged_at) FROM order_stage)'),
      ).toEqual([{ overlapped: true }]);
      expect(await db.sql("SELECT count(*) AS n FROM order_stage WHERE process_status NOT IN ('DONE', 'ERROR')")).toEqual([{ n: 0 }]);
    } finally {
      await db.dispose();
    }
  });

  it('processing beside staging is woken by each committed batch and by the end of staging, not by its idle wait', async () => {
    const db = await server!.create();
    try {
      const { loader } = await db.open({ workers: 2 });
      // an idle wait no test outlives: the load ends only if staging's news wakes the idle workers
      const report = await loader.load([repeatedKeyFile(600)], { batchSize: 200, chunkSize: 100, idleWaitMs: 3_600_000 });
      expect(report.exitCode).toBe(2);
      expect(await db.sql("SELECT count(*) AS n FROM order_stage WHERE process_status NOT IN ('DONE', 'ERROR')")).toEqual([{ n: 0 }]);
      expect(await db.sql('SELECT count(*) AS n FROM orders')).toEqual([{ n: 600 }]);
    } finally {
      await db.dispose();
    }
  });

  it('a key repeated across two files of one run: the later file wins as with sequential phases', async () => {
    const db = await server!.create();
    try {
      const { loader } = await db.open({ workers: 2 });
      const first = [HEADER, 'X,1,2026-01-01,100,JPY'];
      for (let i = 0; i < 3000; i++) first.push(`A-${i},1,2026-01-01,1,JPY`);
      const second = [HEADER];
      for (let i = 0; i < 3000; i++) second.push(`B-${i},1,2026-01-01,1,JPY`);
      second.push('X,1,2026-01-01,,JPY');
      const report = await loader.load([writeTestFile(`${first.join('\n')}\n`), writeTestFile(`${second.join('\n')}\n`)], {
        batchSize: 200,
        chunkSize: 100,
      });
      expect(report.exitCode).toBe(2);
      expect(await db.sql("SELECT process_status FROM order_stage WHERE source_key = 'X'")).toEqual([{ process_status: 'ERROR' }]);
      expect(await db.sql("SELECT count(*) AS n FROM orders WHERE source_key = 'X'")).toEqual([{ n: 0 }]);
    } finally {
      await db.dispose();
    }
  });

  it('--no-overlap processes only once the file is staged', async () => {
    const db = await server!.create();
    try {
      const file = repeatedKeyFile(6000);
      const result = await runCli(['load', file, '--no-overlap', '--batch-size', '200', '--chunk-size', '100', '--db', db.url!, '--json']);
      expect(result.code).toBe(2);
      expect(await db.sql('SELECT count(*) AS n FROM order_stage WHERE processed_at < (SELECT max(staged_at) FROM order_stage)')).toEqual([
        { n: 0 },
      ]);
      expect(await db.sql("SELECT count(*) AS n FROM orders WHERE source_key = 'DUP'")).toEqual([{ n: 0 }]);
    } finally {
      await db.dispose();
    }
  });

  it('held rows stay HELD after a load stopped while staging, and the rerun that resumes it releases them', async () => {
    const db = await server!.create();
    try {
      const file = repeatedKeyFile(6000);
      const stop = new AbortController();
      const { loader } = await db.open({ workers: 2 });
      const first = await loader.load([file], {
        batchSize: 200,
        chunkSize: 100,
        signal: stop.signal,
        // stopped after some batches are committed: the state a kill -9 after a checkpoint leaves
        onStageProgress: (_file, _bytes, _size, lines) => {
          if (lines >= 2000) stop.abort();
        },
      });
      expect(first.exitCode).toBe(1);
      expect(await db.sql("SELECT process_status FROM order_stage WHERE source_key = 'DUP'")).toEqual([{ process_status: 'HELD' }]);
      // `process` leaves it HELD: the file's last line of DUP is not staged yet
      const { loader: processor } = await db.open({ workers: 2 });
      await processor.process({ chunkSize: 100 });
      expect(await db.sql("SELECT process_status FROM order_stage WHERE source_key = 'DUP'")).toEqual([{ process_status: 'HELD' }]);
      const status = await runCli(['status', '--db', db.url!]);
      expect(status.stdout).toContain('HELD');
      // the rerun resumes the file and releases what the first run held
      const { loader: again } = await db.open({ workers: 2 });
      const rerun = await again.load([file], { batchSize: 200, chunkSize: 100 });
      expect(rerun.files[0]?.resumedAt).not.toBeNull();
      expect(await db.sql("SELECT process_status, line_no FROM order_stage WHERE source_key = 'DUP'")).toEqual([
        { process_status: 'ERROR', line_no: 6003 },
      ]);
      expect(await db.sql("SELECT count(*) AS n FROM orders WHERE source_key = 'DUP'")).toEqual([{ n: 0 }]);
      expect(await db.sql("SELECT count(*) AS n FROM order_stage WHERE process_status = 'HELD'")).toEqual([{ n: 0 }]);
    } finally {
      await db.dispose();
    }
  });

  it('recover releases the HELD rows of a load no running run stages once held longer than --older-than, audited', async () => {
    const db = await server!.create();
    try {
      const stop = new AbortController();
      const { loader } = await db.open({ workers: 2 });
      await loader.load([repeatedKeyFile(6000)], {
        batchSize: 200,
        chunkSize: 100,
        signal: stop.signal,
        onStageProgress: (_file, _bytes, _size, lines) => {
          if (lines >= 2000) stop.abort();
        },
      });
      expect(await db.sql("SELECT process_status FROM order_stage WHERE source_key = 'DUP'")).toEqual([{ process_status: 'HELD' }]);
      // held a moment ago: the default --older-than (15m) keeps the hold, and says so
      const kept = await runCli(['recover', '--db', db.url!]);
      expect(kept.stdout).toMatch(/recover: changed 0 rows\nrecover: kept 1 HELD row of load \d+ \(.*\), held since /);
      expect(await db.sql("SELECT process_status FROM order_stage WHERE source_key = 'DUP'")).toEqual([{ process_status: 'HELD' }]);
      const recovered = await runCli(['recover', '--older-than', '1ms', '--db', db.url!]);
      expect(recovered.stdout).toContain('released 1 HELD row');
      expect(await db.sql("SELECT old_status, new_status FROM order_stage_audit WHERE source_key = 'DUP'")).toEqual([
        { old_status: 'HELD', new_status: 'READY' },
      ]);
      expect(await db.sql("SELECT process_status FROM order_stage WHERE source_key = 'DUP'")).toEqual([{ process_status: 'READY' }]);
    } finally {
      await db.dispose();
    }
  });
});
