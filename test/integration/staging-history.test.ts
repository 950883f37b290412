/**
 * A file's staging plan follows what was committed of its identity (the latest
 * run of the same sha256, encoding and delimiter with a 'staged' or 'staged_checkpoint' event),
 * whatever runs came after it. Runs killed right after their row was inserted, after 'invoked', or
 * right after 'resumed' are written here by the loader's own journal (LoadJournal / FileRun), as a
 * killed process leaves them; the survival test (test/survival/journal-kill.test.ts) kills real
 * processes at each step.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Engine } from '../../src/engine/types.js';
import { expandInputs } from '../../src/input/inputs.js';
import { sha256File } from '../../src/input/file-digest.js';
import { openOrderFile } from '../../src/input/order-file.js';
import { LoadJournal } from '../../src/pipeline/load-journal.js';
import type { TestDatabase } from '../support/databases.js';
import { HEADER, tempDir, writeTestFile } from '../support/files.js';
import { memoryLogger } from '../support/memory-logger.js';
import { forEachTarget, targetTest } from '../support/target-test.js';

/** a.csv: LWW-1 at 100; b.csv: LWW-1 at 200 (the later file's value must win). */
const A = `${HEADER}\nLWW-1,1,2026-01-01,100.00,EUR\nA-1,2,2026-01-02,1.00,EUR\nA-2,3,2026-01-03,2.00,EUR\n`;
const B = `${HEADER}\nLWW-1,1,2026-01-01,200.00,EUR\nB-1,4,2026-01-04,3.00,EUR\n`;

/** A loader and the engine under it (to write a killed run's journal with the loader's own code). */
async function openWithEngine(db: TestDatabase) {
  let engine: Engine | undefined;
  const { loader, logs } = await db.openWith((e) => (engine = e));
  if (engine === undefined) throw new Error('no engine');
  return { loader, logs, engine };
}

/**
 * The journal a `load` of `path` leaves when killed: its run row only ('started'), or with the
 * 'invoked' event (for the load `loadId`, this run's own when omitted), or also 'resumed' at `from`.
 */
async function killedRun(
  engine: Engine,
  path: string,
  step: 'started' | 'invoked' | 'resumed',
  options: { loadId?: number; restage?: boolean; from?: { line: number; byte: number } } = {},
): Promise<number> {
  const journal = new LoadJournal(engine, 'load', { logger: memoryLogger().logger });
  const file = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',' });
  try {
    const run = await journal.startFile(file, await sha256File(path));
    if (step === 'started') return run.runId;
    const loadId = options.loadId ?? run.runId;
    await run.invoked(file, await sha256File(path), loadId, { encoding: 'utf-8', delimiter: ',', restage: options.restage });
    if (step === 'resumed') await run.resumed(loadId, options.from ?? { line: 1, byte: 0 });
    return run.runId;
  } finally {
    file.close();
  }
}

const lww = (db: TestDatabase) => db.sql("SELECT amount FROM orders WHERE source_key = 'LWW-1'");

forEachTarget('the staging plan follows what was committed, on $kind', () => {
  targetTest(
    'a run that wrote no event (or only invoked) after a.csv and b.csv were staged: a rerun of the inbox skips both, b wins, exit 0',
    async ({ db }) => {
      const { loader, engine } = await openWithEngine(db);
      const inbox = tempDir();
      const archive = join(inbox, 'archive');
      mkdirSync(archive);
      writeFileSync(join(inbox, 'a.csv'), A);
      writeFileSync(join(inbox, 'b.csv'), B);
      const a = join(inbox, 'a.csv');
      const first = await loader.load([a, join(inbox, 'b.csv')]);
      expect(first.exitCode).toBe(0);
      const loadA = first.files[0]!.loadId;
      expect(await lww(db)).toEqual([{ amount: '200.00' }]);

      // the states a killed rerun leaves for a.csv, one after the other, each followed by a rerun
      // of both files: never a fresh load of a.csv over b's values
      const states: Array<[string, () => Promise<unknown>]> = [
        ['its run row only (killed right after startRun, or the server went away)', () => killedRun(engine, a, 'started')],
        ['its run row and invoked', () => killedRun(engine, a, 'invoked')],
        ['invoked with --restage, killed before its first batch', () => killedRun(engine, a, 'invoked', { restage: true })],
        [
          'the load that staged it ended FAILED after its staging completed',
          () => engine.finishRun(first.files[0]!.runId, 'FAILED', {}, 'processing failed'),
        ],
      ];
      for (const [state, write] of states) {
        await write();
        const rerun = await loader.load([a, join(inbox, 'b.csv')]);
        expect(
          rerun.files.map((f) => [f.skipped?.includes('already staged') === true, f.counts.read]),
          state,
        ).toEqual([
          [true, 0],
          [true, 0],
        ]);
        expect(rerun.files[0]?.loadId, state).toBe(loadA);
        expect(rerun.exitCode, state).toBe(0);
        expect(await lww(db), state).toEqual([{ amount: '200.00' }]);
      }

      // the issue as reported: a run row for a.csv without events, then the inbox loaded with --archive-dir;
      // a.csv is in the inbox again (never archived): skipped, not staged over b's values
      await killedRun(engine, a, 'started');
      const { files } = expandInputs([inbox]);
      const last = await loader.load(
        files.map((f) => f.path),
        { listed: files, archiveDir: archive },
      );
      expect(last.exitCode).toBe(0);
      expect(last.files.map((f) => [f.file.split('/').pop(), f.skipped?.includes('already staged') === true, f.counts.read])).toEqual([
        ['a.csv', true, 0],
        ['b.csv', true, 0],
      ]);
      expect(readdirSync(inbox).filter((n) => !n.startsWith('.'))).toEqual(['archive']);
      expect(
        readdirSync(archive)
          .map((n) => n.replace(/^load\d+-/, ''))
          .sort(),
      ).toEqual(['a.csv', 'b.csv']);
      expect(await lww(db)).toEqual([{ amount: '200.00' }]);
      expect(await db.sql("SELECT count(*) AS n FROM order_stage WHERE process_status <> 'DONE'")).toEqual([{ n: 0 }]);
    },
  );

  targetTest(
    'a resume interrupted right after it started resumes again the same load: each rejected line is listed once',
    async ({ db }) => {
      const { loader, engine } = await openWithEngine(db);
      // 9 lines in batches of 3; line 3 has a field too few: rejected in the first batch
      const lines = Array.from({ length: 9 }, (_, i) =>
        i === 1 ? `R-${i},2,2026-01-01,1` : `R-${i},${i + 1},2026-01-0${1 + (i % 9)},${i}.50,JPY`,
      );
      const path = writeTestFile(`${HEADER}\n${lines.join('\n')}\n`, 'resume.csv');
      const controller = new AbortController();
      const first = await loader.stage([path], { batchSize: 3, signal: controller.signal, onStageProgress: () => controller.abort() });
      expect(first.aborted).toContain('interrupted while staging');
      const loadId = first.files[0]!.loadId;
      const [checkpoint] = await db.sql<{ detail: string }>(
        "SELECT detail FROM load_run_event WHERE event = 'staged_checkpoint' AND run_id = $1 ORDER BY seq DESC",
        [first.files[0]!.runId],
      );
      const from = JSON.parse(checkpoint!.detail) as { line: number; byte: number };
      expect(from.line).toBe(4);

      // the second interruption: a rerun killed right after its 'resumed' event, before any batch;
      // then one killed after its run row only
      await killedRun(engine, path, 'resumed', { loadId, from });
      await killedRun(engine, path, 'started');

      const rerun = await loader.load([path], { batchSize: 3 });
      expect(rerun.exitCode).toBe(2);
      expect(rerun.files[0]?.loadId).toBe(loadId);
      expect(rerun.files[0]?.resumedAt).toEqual({ line: 4, byte: from.byte });
      expect(rerun.files[0]?.counts).toMatchObject({ read: 9, inserted: 8, rejected: 1 });
      const errors = await loader.errors();
      expect(errors.map((e) => [e.loadId, e.lineNo, e.phase])).toEqual([[loadId, 3, 'PARSE']]);
      expect(await db.sql('SELECT count(DISTINCT load_id) AS n FROM order_stage')).toEqual([{ n: 1 }]);
    },
  );

  targetTest(
    'a --restage that committed a batch is continued by a plain rerun; one that committed none leaves the earlier load',
    async ({ db }) => {
      const { loader, engine } = await openWithEngine(db);
      const lines = Array.from({ length: 6 }, (_, i) => `S-${i},${i + 1},2026-01-02,${i}.00,EUR`);
      const path = writeTestFile(`${HEADER}\n${lines.join('\n')}\n`, 'restage.csv');
      const loaded = await loader.load([path], { batchSize: 2 });
      const firstLoad = loaded.files[0]!.loadId;

      // --restage killed before its first batch: nothing of it was committed, a plain rerun skips
      await killedRun(engine, path, 'invoked', { restage: true });
      const skipped = (await loader.load([path], { batchSize: 2 })).files[0];
      expect([skipped?.loadId, skipped?.skipped?.includes('already staged')]).toEqual([firstLoad, true]);

      // --restage interrupted after a committed batch: a plain rerun continues that new load
      const controller = new AbortController();
      const restaged = await loader.stage([path], {
        batchSize: 2,
        restage: true,
        signal: controller.signal,
        onStageProgress: () => controller.abort(),
      });
      const restageLoad = restaged.files[0]!.loadId;
      expect(restageLoad).not.toBe(firstLoad);
      await killedRun(engine, path, 'started');
      const resumed = await loader.load([path], { batchSize: 2 });
      expect(resumed.files[0]).toMatchObject({ loadId: restageLoad, resumedAt: { line: 3 }, skipped: null });
      expect(resumed.files[0]?.counts).toMatchObject({ read: 6, unchanged: 6 });
      // and once it is complete, it is the load a rerun names
      const complete = (await loader.load([path])).files[0];
      expect([complete?.loadId, complete?.skipped?.includes('already staged')]).toEqual([restageLoad, true]);
    },
  );

  targetTest(
    'the same bytes read as UTF-8, then as Shift_JIS, then as UTF-8 again: the last is skipped, not staged again',
    async ({ db }) => {
      const { loader } = await db.open();
      // (a file whose start is Shift_JIS is refused when read as UTF-8: these bytes read alike in both)
      const path = writeTestFile(Buffer.from(`${HEADER}\nJ-1,1,2026-01-01,1,JPY\n`), 'sjis-again.csv');
      const utf8 = await loader.load([path]);
      expect(utf8.files[0]?.counts).toMatchObject({ read: 1, inserted: 1 });
      const sjis = await loader.load([path], { encoding: 'shift_jis' });
      expect(sjis.files[0]).toMatchObject({ skipped: null, counts: { unchanged: 1 } });
      expect(sjis.files[0]?.loadId).not.toBe(utf8.files[0]?.loadId);
      const again = await loader.load([path]);
      expect([again.files[0]?.loadId, again.files[0]?.skipped?.includes('already staged')]).toEqual([utf8.files[0]!.loadId, true]);
    },
  );
});
