/**
 * Only a run that stages the whole file set of the run that held rows releases them. a.csv holds
 * K1 = 100.00, b.csv 1,000 other keys, c.csv K1 again with no amount: K1's last line is invalid,
 * so orders must end without K1 (the rule: orders holds each key's last valid line, in load
 * order). A load of the three is stopped while it stages b.csv, leaving K1 HELD; what may release
 * it then is a run that stages a.csv, b.csv and c.csv again (by base name, from any folder, a
 * corrected resend included), or `recover`, which gives the set up (audited).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { OrderLoader } from '../../src/loader.js';
import { parseCorrections } from '../../src/pipeline/corrections.js';
import { HEADER, tempDir } from '../support/files.js';
import { forEachTarget, targetTest } from '../support/target-test.js';

/** a.csv, b.csv and c.csv in a fresh folder. */
function writeSet(): { a: string; b: string; c: string } {
  const dir = tempDir();
  const others = Array.from({ length: 1000 }, (_, i) => `B${String(i).padStart(4, '0')},2,2026-11-02,${i + 1}.00,JPY`);
  const files = { a: join(dir, 'a.csv'), b: join(dir, 'b.csv'), c: join(dir, 'c.csv') };
  writeFileSync(files.a, `${HEADER}\nK1,1,2026-11-01,100.00,JPY\n`);
  writeFileSync(files.b, `${HEADER}\n${others.join('\n')}\n`);
  writeFileSync(files.c, `${HEADER}\nK1,1,2026-11-03,,JPY\n`);
  return files;
}

/** Load the set and stop it once b.csv's third batch is in (a kill's outcome: committed batches stay, nothing released). */
async function stopWhileBStages(loader: OrderLoader, files: { a: string; b: string; c: string }): Promise<void> {
  const stop = new AbortController();
  const stopped = await loader.load([files.a, files.b, files.c], {
    batchSize: 100,
    signal: stop.signal,
    onStageProgress: (file, _bytes, _size, read) => {
      if (file === files.b && read >= 300) stop.abort();
    },
  });
  expect(stopped.aborted).toMatch(/interrupted while staging/);
}

forEachTarget('the file set of a stopped load on $kind', () => {
  targetTest('a run of part of the set releases nothing the set holds, and says so; the whole set again releases it', async ({ db }) => {
    const files = writeSet();
    const { loader } = await db.open();
    await stopWhileBStages(loader, files);
    const k1 = () => db.sql("SELECT process_status FROM order_stage WHERE source_key = 'K1'");
    expect(await k1()).toEqual([{ process_status: 'HELD' }]);

    // a.csv alone: skipped (already staged), its staging ends without b.csv and c.csv
    const part = await loader.load([files.a]);
    expect(part.exitCode).toBe(2);
    expect(part.strandedHolds).toEqual([expect.objectContaining({ file: files.a, rows: 1, missing: ['b.csv', 'c.csv'] })]);
    expect(await k1()).toEqual([{ process_status: 'HELD' }]);
    expect(await db.sql("SELECT count(*) AS n FROM orders WHERE source_key = 'K1'")).toEqual([{ n: 0 }]);

    // the whole set: c.csv's invalid K1 is the key's last line, and nothing of the set waits any more
    const whole = await loader.load([files.a, files.b, files.c], { batchSize: 100 });
    expect(whole.strandedHolds).toBeUndefined();
    expect(await k1()).toEqual([{ process_status: 'ERROR' }]);
    expect(await db.sql("SELECT count(*) AS n FROM orders WHERE source_key = 'K1'")).toEqual([{ n: 0 }]);
    expect(await db.sql("SELECT count(*) AS n FROM order_stage WHERE process_status = 'HELD'")).toEqual([{ n: 0 }]);
    expect(await db.sql('SELECT count(*) AS n FROM load_hold_set')).toEqual([{ n: 0 }]);
  });

  targetTest('a corrected resend of a file of the set, from another folder under the same name, completes the set', async ({ db }) => {
    const files = writeSet();
    const { loader } = await db.open();
    await stopWhileBStages(loader, files);
    const resent = join(tempDir(), 'c.csv');
    writeFileSync(resent, `${HEADER}\nK1,1,2026-11-03,300.00,JPY\n`);
    const rerun = await loader.load([files.a, files.b, resent], { batchSize: 100 });
    expect(rerun.exitCode).toBe(0);
    expect(rerun.strandedHolds).toBeUndefined();
    expect(await db.sql("SELECT amount FROM orders WHERE source_key = 'K1'")).toEqual([{ amount: '300.00' }]);
    expect(await db.sql('SELECT count(*) AS n FROM load_hold_set')).toEqual([{ n: 0 }]);
  });

  targetTest('a set whose file left the inbox stays HELD and is said to be, until recover gives it up', async ({ db }) => {
    const files = writeSet();
    const { loader } = await db.open();
    await stopWhileBStages(loader, files);
    // where the stop landed: the rows of b.csv merged before it (on a server, rows staged but not
    // yet processed when it stopped are READY, and the rerun holds them again with the rest)
    const [before] = await db.sql("SELECT count(*) AS n FROM orders WHERE source_key LIKE 'B%'");
    const mergedBefore = Number(before!.n);
    expect(mergedBefore).toBeGreaterThanOrEqual(0);
    expect(mergedBefore).toBeLessThan(1000);
    // c.csv taken away: the rest of the set, staged whole, still does not release K1, and the
    // lines of b.csv not merged before the stop are HELD too (c.csv could have repeated their keys)
    const rest = await loader.load([files.a, files.b], { batchSize: 100 });
    expect(rest.exitCode).toBe(2);
    expect(rest.strandedHolds).toEqual([
      expect.objectContaining({ file: files.a, rows: 1, missing: ['c.csv'] }),
      expect.objectContaining({ file: files.b, rows: 1000 - mergedBefore, missing: ['c.csv'] }),
    ]);
    expect(await db.sql("SELECT process_status FROM order_stage WHERE source_key = 'K1'")).toEqual([{ process_status: 'HELD' }]);
    expect(await db.sql("SELECT count(*) AS n FROM orders WHERE source_key LIKE 'B%'")).toEqual([{ n: mergedBefore }]);

    const recovered = await loader.recover({ olderThanMs: 0, reason: 'c.csv is not coming back', dryRun: false });
    expect(recovered.released).toBe(1 + 1000 - mergedBefore);
    expect(await db.sql("SELECT action, old_status, new_status FROM order_stage_audit WHERE source_key = 'K1'")).toEqual([
      { action: 'RECOVER', old_status: 'HELD', new_status: 'READY' },
    ]);
    // given up: a later run of part of the set has nothing of it to wait for
    const after = await loader.load([files.a]);
    expect(after.strandedHolds).toBeUndefined();
    expect(after.exitCode).toBe(0);
    expect(await db.sql("SELECT amount FROM orders WHERE source_key = 'K1'")).toEqual([{ amount: '100.00' }]);
  });

  targetTest("retry and the review page's resubmit leave a rejected line of the set's load ERROR until the set's rerun", async ({ db }) => {
    const files = writeSet();
    writeFileSync(files.a, `${HEADER}\nK1,1,2026-11-01,100.00,JPY\nR1,1,2026-11-01,abc,JPY\n`);
    const { loader } = await db.open();
    await stopWhileBStages(loader, files);
    const ask = { corrections: parseCorrections(['amount=3']), reason: 'between', operator: 'ops', all: false, dryRun: false };
    const r1 = () =>
      db.sql("SELECT process_status AS s, attempt_count, updated_at, stage_id, load_id FROM order_stage WHERE source_key = 'R1'");
    const [row] = await r1();
    expect(row).toMatchObject({ s: 'ERROR' });
    const loadId = Number(row!.load_id);
    const left = await loader.retry({ ...ask, selector: { sourceKeys: ['R1'] } });
    expect(left.retry).toMatchObject({ count: 0, controlHeld: [{ loadId, rows: 1, set: true, control: false }] });
    await expect(
      loader.retry({
        ...ask,
        selector: { stageIds: [Number(row!.stage_id)] },
        seen: { attemptCount: Number(row!.attempt_count), updatedAt: new Date(row!.updated_at as string) },
      }),
    ).rejects.toThrow(new RegExp(`load ${loadId}: the load is held by an unfinished set: rerun the set's files`));
    expect(await db.sql("SELECT count(*) AS n FROM orders WHERE source_key = 'R1'")).toEqual([{ n: 0 }]);

    // the set's rerun staged it whole: R1 is retried as any other row
    await loader.load([files.a, files.b, files.c], { batchSize: 100 });
    const after = await loader.retry({ ...ask, selector: { sourceKeys: ['R1'] } });
    expect(after.retry).toMatchObject({ count: 1 });
    expect(after.retry.controlHeld).toBeUndefined();
    expect(await db.sql("SELECT amount FROM orders WHERE source_key = 'R1'")).toEqual([{ amount: '3.00' }]);
  });
});
