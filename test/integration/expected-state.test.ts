/**
 * The file-based invariants (test/support/expected-state.ts, file-invariants.ts) against the
 * product: two rounds of files sharing keys (repeats within and across files, last lines valid
 * and refused) loaded in name order end exactly as computed from the files; and the check is able
 * to fail: an order holding an earlier line's values (first occurrence wins), a stage row pointing
 * at another line, a repeated or a missing error-log row are each reported. With rules of the
 * site's own (a CHECK on order_stage refusing lines while staging, a trigger on orders refusing
 * rows in the MERGE: test/support/site-rules.ts) the state is still the one computed from the
 * files, at every batch size.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { expectedState, type InputFile } from '../support/expected-state.js';
import { compareWithFiles, unaccountedFileLines } from '../support/file-invariants.js';
import { tempDir } from '../support/files.js';
import { sharedKeyFiles } from '../support/shared-key-files.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { SITE_RULES, SITE_RULES_SQL } from '../support/site-rules.js';
import { testTargets } from '../support/databases.js';

function write(files: InputFile[]): string[] {
  const dir = tempDir();
  return files.map((f) => {
    const path = join(dir, f.name);
    writeFileSync(path, f.text);
    return path;
  });
}

forEachTarget('the state computed from the files on $kind', () => {
  targetTest('is what two rounds of files sharing keys leave, and a departure from it is reported', async ({ db }) => {
    const first = sharedKeyFiles({ names: ['r1-a.csv', 'r1-b.csv', 'r1-c.csv'], linesPerFile: 250, keys: 300, seed: 41, echoRate: 0.05 });
    const second = sharedKeyFiles({
      names: ['r2-a.csv', 'r2-b.csv'],
      linesPerFile: 250,
      keys: 300,
      seed: 42,
      firstCustomer: first.nextCustomer,
      echoRate: 0.05,
    });
    const { loader } = await db.open();
    for (const round of [first.files, second.files]) {
      const report = await loader.load(write(round), { batchSize: 60, chunkSize: 50 });
      expect(report.aborted).toBeNull();
    }
    const all = [...first.files, ...second.files];
    // echoes: a line repeated verbatim later in its file (in a later staging batch for some)
    const echoes = all.flatMap((f) => {
      const lines = f.text.split('\n').slice(1);
      return lines.filter((l, i) => l !== '' && lines.indexOf(l) < i);
    });
    expect(echoes.length).toBeGreaterThan(20);
    const expected = expectedState([first.files, second.files]);
    expect(expected.stats.ordersKeptFromEarlierRound).toBeGreaterThan(0);
    expect(expected.stats.lastRejectedAfterValid).toBeGreaterThan(0);
    expect(expected.stats.lastValidAfterRejected).toBeGreaterThan(0);
    expect(await compareWithFiles(db.sql, expected)).toEqual([]);
    expect(await unaccountedFileLines(db.sql, all)).toEqual([]);

    // an order holding other values than its last merged line, its stage row pointing at another
    // line, a PARSE row lost and a VALIDATE row written twice: each reported
    const repeated = [...expected.stage].filter(([, r]) => r.status === 'DONE' && r.file !== 'r1-a.csv').map(([k]) => k)[0] ?? '';
    await db.sql('UPDATE orders SET amount = amount + 1 WHERE source_key = $1', [repeated]);
    await db.sql('UPDATE order_stage SET line_no = line_no + 1 WHERE source_key = $1', [repeated]);
    const errorId = (
      await db.sql<{ error_id: number }>("SELECT min(error_id) AS error_id FROM order_bulk_error WHERE phase = 'VALIDATE'")
    )[0];
    await db.sql(
      `INSERT INTO order_bulk_error (stage_id, source_key, load_id, line_no, batch_id, attempt_no, phase, error_code, error_message)
       SELECT stage_id, source_key, load_id, line_no, batch_id, attempt_no, phase, error_code, error_message FROM order_bulk_error WHERE error_id = $1`,
      [errorId?.error_id],
    );
    await db.sql("DELETE FROM order_bulk_error WHERE error_id = (SELECT min(error_id) FROM order_bulk_error WHERE phase = 'PARSE')");
    const violations = await compareWithFiles(db.sql, expected);
    expect(violations).toEqual([
      expect.stringContaining(`pointing at another line than the winning one (file:line): ${repeated}`),
      expect.stringContaining(`orders holding another line's values than the last merged one: ${repeated}`),
      expect.stringMatching(/^error-log rows missing: PARSE /),
      expect.stringMatching(/^error-log rows not expected \(or repeated\): VALIDATE .* ×1$/),
    ]);
  });
});

// PL/pgSQL rules: PostgreSQL and PGlite
const pgTargets = testTargets().filter((t) => t.kind !== 'oracle');

forEachTarget(
  'the state computed from the files, with rules of the site’s own, on $kind',
  () => {
    for (const batchSize of [7, 60, 1000]) {
      targetTest(`holds with lines refused while staging and rows refused in the MERGE (--batch-size ${batchSize})`, async ({ db }) => {
        for (const statement of SITE_RULES_SQL) await db.sql(statement);
        const first = sharedKeyFiles({ names: ['r1-a.csv', 'r1-b.csv'], linesPerFile: 250, keys: 200, seed: 43, echoRate: 0.05 });
        const second = sharedKeyFiles({
          names: ['r2-a.csv'],
          linesPerFile: 250,
          keys: 200,
          seed: 44,
          firstCustomer: first.nextCustomer,
          echoRate: 0.05,
        });
        const { loader } = await db.open();
        for (const round of [first.files, second.files]) {
          const report = await loader.load(write(round), { batchSize, chunkSize: 50 });
          expect(report.aborted).toBeNull();
        }
        const expected = expectedState([first.files, second.files], SITE_RULES);
        expect(expected.siteRefusals.staging).toBeGreaterThan(10);
        expect(expected.siteRefusals.merge).toBeGreaterThan(10);
        expect(await compareWithFiles(db.sql, expected)).toEqual([]);
        expect(await unaccountedFileLines(db.sql, [...first.files, ...second.files], SITE_RULES)).toEqual([]);
      });
    }
  },
  pgTargets,
);
