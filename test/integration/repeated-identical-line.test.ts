/**
 * A key whose later line repeats the values an earlier line of the same load staged: the stage
 * row, the error log and the errors export name the later line, whatever batches the two lines
 * fell in (the staging rule: the last occurrence of a key wins; PostgreSQL migration 013, Oracle
 * queries/stage_batch_update.sql). Before, a later identical line in another batch left the row
 * on the earlier line, so the line named depended on --batch-size. A row an earlier load staged
 * keeps the rule it had: DONE stays on its load and line, anything else moves to the new load.
 * Both staging paths: COPY of new keys (the default; a key already staged makes it give way to
 * the function) and the function alone (ORDER_LOADER_STAGE_COPY=off).
 */
import { expect } from 'vitest';
import type { OrderLoader } from '../../src/index.js';
import type { TestDatabase } from '../support/databases.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { withEngineSwitch } from '../support/engine-switch.js';

/** A loader over `db` with COPY staging on or off (the engine reads the switch when it opens). */
async function openLoader(db: TestDatabase, copy: boolean): Promise<OrderLoader> {
  return withEngineSwitch('ORDER_LOADER_STAGE_COPY', copy, async () => (await db.open()).loader);
}

// file lines (the header is line 1): BAD's and OK's last lines are 7 and 8, identical to 2 and 3
const LINES = [
  'BAD,10,2026-01-01,,USD', // 2: no amount (VALIDATE error when processed)
  'OK,11,2026-01-01,11.00,USD', // 3
  'X1,12,2026-01-01,12.00,USD', // 4
  'X2,13,2026-01-01,13.00,USD', // 5
  'X3,14,2026-01-01,14.00,USD', // 6
  'BAD,10,2026-01-01,,USD', // 7
  'OK,11,2026-01-01,11.00,USD', // 8
];

interface KeyLines {
  stage: Record<string, { status: string; line: number; load: number }>;
  logged: Array<{ key: string; phase: string; line: number; load: number }>;
}

async function keyLines(db: TestDatabase): Promise<KeyLines> {
  const stage: KeyLines['stage'] = {};
  for (const r of await db.sql(
    "SELECT source_key, process_status, line_no, load_id FROM order_stage WHERE source_key IN ('BAD', 'OK', 'DONE1', 'ERR1') ORDER BY source_key",
  ))
    stage[String(r.source_key)] = { status: String(r.process_status), line: Number(r.line_no), load: Number(r.load_id) };
  const logged = (await db.sql('SELECT source_key, phase, line_no, load_id FROM order_bulk_error ORDER BY error_id')).map((r) => ({
    key: String(r.source_key),
    phase: String(r.phase),
    line: Number(r.line_no),
    load: Number(r.load_id),
  }));
  return { stage, logged };
}

forEachTarget('a later identical line of a key within one load, on $kind', () => {
  for (const copy of [true, false]) {
    for (const batchSize of [1, 2, 4, 100]) {
      targetTest(`names the later line (COPY staging ${copy ? 'on' : 'off'}, --batch-size ${batchSize})`, async ({ db }) => {
        const loader = await openLoader(db, copy);
        const file = writeTestFile(`${HEADER}\n${LINES.join('\n')}\n`);
        const report = await loader.load([file], { batchSize });
        const load = report.files[0]!.loadId;
        const { stage, logged } = await keyLines(db);
        expect(stage).toEqual({
          BAD: { status: 'ERROR', line: 7, load },
          OK: { status: 'DONE', line: 8, load },
        });
        expect(logged).toEqual([{ key: 'BAD', phase: 'VALIDATE', line: 7, load }]);
        const exported = (await loader.errors()).map((e) => [e.sourceKey, e.phase, e.lineNo]);
        expect(exported).toEqual([['BAD', 'VALIDATE', 7]]);
        // the lines are counted as before: two keys repeated within the load, nothing else moved
        expect(report.files[0]!.counts).toMatchObject({ duplicates: 2 });
      });
    }
  }

  targetTest('a row an earlier load staged keeps the rule across loads: DONE stays, ERROR moves to the new load', async ({ db }) => {
    const loader = await openLoader(db, true);
    const first = await loader.load([writeTestFile(`${HEADER}\nDONE1,1,2026-01-01,1.00,USD\nERR1,2,2026-01-01,,USD\n`)]);
    const firstLoad = first.files[0]!.loadId;
    // the same values, on other lines, in a second load (batches of one line)
    const second = await loader.load(
      [
        writeTestFile(
          `${HEADER}\nZ1,3,2026-01-01,3.00,USD\nZ2,4,2026-01-01,4.00,USD\nERR1,2,2026-01-01,,USD\nDONE1,1,2026-01-01,1.00,USD\n`,
        ),
      ],
      {
        batchSize: 1,
      },
    );
    const secondLoad = second.files[0]!.loadId;
    const { stage, logged } = await keyLines(db);
    expect(stage).toEqual({
      DONE1: { status: 'DONE', line: 2, load: firstLoad },
      ERR1: { status: 'ERROR', line: 4, load: secondLoad },
    });
    // ERR1 was not processed again (identical values): the error log keeps its first failure
    expect(logged).toEqual([{ key: 'ERR1', phase: 'VALIDATE', line: 3, load: firstLoad }]);
  });
});
