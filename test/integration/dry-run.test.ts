import { expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { OrderLoader } from '../../src/loader.js';
import { dryRunExitCode } from '../../src/pipeline/outcome.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url));
const file = (lines: string[], header = HEADER) => writeTestFile(`${header}\n${lines.join('\n')}\n`);

/** Lines of a valid row, keyed k. */
const ok = (k: string, amount = '10') => `${k},1,2026-01-01,${amount},JPY`;

/**
 * Each file of the corpus, loaded with 3-line batches so that a key repeated 4 lines later is
 * "more than one batch apart". None holds a value the database itself would refuse.
 */
const corpus: Array<[string, string]> = [
  ['valid rows', file([ok('V1'), ok('V2'), ok('V3')])],
  ['a missing amount', file([ok('A1'), 'A2,1,2026-01-01,,JPY'])],
  ['a negative amount', file([ok('N1'), 'N2,1,2026-01-01,-5,JPY'])],
  ['a lower-case currency', file(['C1,1,2026-01-01,1,jpy', ok('C2')])],
  ['an impossible date', file(['D1,1,2026-02-30,1,JPY', ok('D2')])],
  ['an amount in exponent notation', file(['E1,1,2026-01-01,1e5,JPY', ok('E2')])],
  ['a line with too many fields', file([ok('F1'), 'F2,1,2026-01-01,1,JPY,extra', ok('F3')])],
  ['an empty source_key', file([ok('K1'), ',1,2026-01-01,1,JPY'])],
  ['several problems in one row', file(['M1,x,2026-01-01,-1,jpy', 'M2,0,,,'])],
  ['duplicates within a batch', file([ok('W1', '1'), ok('W1', '2'), ok('W2')])],
  [
    'duplicates more than one batch apart',
    file([ok('B1', '1'), ok('B2'), ok('B3'), ok('B4'), ok('B5'), ok('B1', '2'), ok('B6'), ok('B7'), 'B2,1,2026-01-01,,JPY']),
  ],
  [
    'a rejected line replaced by a later valid one, and the reverse',
    file(['R1,x,2026-01-01,1,JPY', ok('R2'), ok('R3'), ok('R4'), ok('R1'), 'R2,1,2026-01-01,1e5,JPY']),
  ],
  ['an extra column', file(['X1,1,2026-01-01,1,JPY,note', 'X2,1,2026-01-01,-1,JPY,note'], `${HEADER},remark`)],
];

forEachTarget('load --dry-run on $kind', (target) => {
  // three loads of a file; the first test of a run also builds the PGlite template
  targetTest.for(corpus)('counts %s as a real load does', { timeout: 180_000 }, async ([_name, path], { db }) => {
    const { loader, logs } = await db.open();
    const [dry] = await OrderLoader.dryRunFiles([path], { batchSize: 3, logger: logs.logger });
    if (dry === undefined) throw new Error('no dry-run result');
    const dryWarnings = logs.records.filter((r) => r.level === 40).map((r) => r.msg);

    const real = await loader.load([path], { batchSize: 3, chunkSize: 2 });
    const [file] = real.files;
    if (file === undefined || real.process === null) throw new Error('no load report');
    const realWarnings = logs.records
      .filter((r) => r.level === 40)
      .map((r) => r.msg)
      .slice(dryWarnings.length);

    expect(real.process.mergeErrors).toBe(0); // the corpus holds nothing the database itself refuses
    expect(file.counts.updated + file.counts.unchanged).toBe(0); // a fresh database
    expect({
      read: dry.counts.read,
      staged: dry.counts.inserted,
      duplicates: dry.counts.duplicates,
      rejected: dry.counts.rejected,
      validateErrors: dry.counts.invalid,
      error: dry.counts.stagedAsError + dry.counts.invalid,
      done: dry.counts.toMerge,
      exitCode: dryRunExitCode([dry]),
      warnings: dryWarnings,
    }).toEqual({
      read: file.counts.read,
      staged: file.counts.inserted,
      duplicates: file.counts.duplicates,
      rejected: file.counts.rejected,
      validateErrors: real.process.validateErrors,
      error: file.tally.ERROR ?? 0,
      done: file.tally.DONE ?? 0,
      exitCode: real.exitCode,
      warnings: realWarnings,
    });
    // and the problems it names are the ones the load logs
    const logged = await db.sql<{ line_no: number; error_code: string; error_message: string }>(
      'SELECT line_no, error_code, error_message FROM order_bulk_error ORDER BY line_no, error_id',
    );
    const named = (dry.samples as Array<{ lineNo: number; code: string; message: string }>).map((s) => ({
      line_no: s.lineNo,
      error_code: s.code,
      error_message: s.message,
    }));
    expect(named).toEqual(logged);

    // `stage --dry-run` exits as a stage does (rejected lines count, broken rules are found later):
    // on a new database, made once this one is given back (one database per test, on every target)
    await db.dispose({ reuse: true });
    const other = await target.create();
    let passed = false;
    try {
      const staged = await (await other.open()).loader.stage([path], { batchSize: 3 });
      expect(dryRunExitCode([dry], 'stage')).toBe(staged.exitCode);
      passed = true;
    } finally {
      await other.dispose({ reuse: passed });
    }
  });

  targetTest('says what it cannot know: a row the database refuses in the MERGE counts as "to MERGE"', async ({ db }) => {
    const { loader } = await db.open();
    const [dry] = await loader.dryRun([fixture('orders-sample.csv')]);
    const real = await loader.load([fixture('orders-sample.csv')]);
    // SRC-102 (no amount) is invalid; SRC-103's amount overflows orders.amount: only the MERGE finds that
    expect(dry?.counts).toMatchObject({ read: 4, inserted: 4, rejected: 0, invalid: 1, stagedAsError: 0, toMerge: 3 });
    expect(real.files[0]?.tally).toEqual({ DONE: 2, ERROR: 2 });
    expect(real.process).toMatchObject({ validateErrors: 1, mergeErrors: 1 });
    expect(dry?.counts.toMerge).toBe((real.files[0]?.tally.DONE ?? 0) + (real.process?.mergeErrors ?? 0));
  });
});
