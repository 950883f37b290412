/**
 * --format markdown: the report of real loads (PGlite, and PostgreSQL when ORDER_LOADER_TEST_PG
 * is set) as a Markdown document: outcome, the per-file table, the error codes with their
 * counts, where the files went; a file name cannot break the table.
 */
import { describe, expect, it } from 'vitest';
import { HEADER, writeTestFile } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { runCli } from '../support/cli-run.js';
import { serverPgTarget } from '../support/databases.js';
import { humanLines } from '../support/cli-output.js';
import { renderLoadMarkdown } from '../../src/cli/render-markdown.js';
import type { LoadReport } from '../../src/pipeline/load.js';
import { NEEDS, unavailable } from '../support/requirements.js';

/** The cells of a Markdown table row (split at `|` not escaped by a backslash). */
const cells = (row: string) =>
  row
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());

/** The table under a `## heading`: its rows as cell lists, header first (the alignment row left out). */
function tableUnder(doc: string, heading: string): string[][] {
  const lines = doc.split('\n');
  const start = lines.indexOf(`## ${heading}`);
  expect(start).toBeGreaterThan(-1);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(cells(line));
  }
  return rows.filter((_, i) => i !== 1);
}

const targets: Array<[string, () => Promise<string>]> = [['pglite', async () => (await migratedPgliteDb()).url]];
const pg = serverPgTarget();
if (pg !== null) targets.push(['postgres', async () => (await pg.create()).url ?? '']);

describe.skipIf(unavailable(NEEDS.cli))('--format markdown (built CLI)', () => {
  it.each(targets)('%s: a load with every kind of failure', async (_kind, database) => {
    const db = await database();
    const bad = writeTestFile(
      [
        HEADER,
        'MD-1,1,2026-01-01,10.00,EUR',
        'MD-2,2,2026-01-02,20.00,EUR',
        'MD-3,3,2026-01-03',
        'MD-4,4,2026-01-04,-1.00,EUR',
        'MD-5,5,2026-01-05,-2.00,EUR',
        'MD-6,6,2026-01-06,1.00,eur',
        'MD-7,7,2026-01-07,12345678901.00,EUR',
        '',
      ].join('\n'),
      'night|ly *1*.csv',
    );
    const good = writeTestFile(`${HEADER}\nMD-8,8,2026-01-08,8.00,EUR\n`, 'good.csv');
    // the name holds `*`: it is a pattern, and a file just written is inside its quiet period
    const r = await runCli(['load', bad, good, '--db', db, '--format', 'markdown', '--log-level', 'silent', '--settle', '0']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    const doc = r.stdout;
    expect(doc.split('\n')[0]).toBe('# order-loader load: finished, some rows need a look (exit 2)');

    const files = tableUnder(doc, 'Files');
    expect(files[0]).toEqual([
      'file',
      'load',
      'read',
      'staged',
      'unchanged',
      'duplicates',
      'rejected',
      'DONE',
      'ERROR',
      'waiting',
      'went to',
    ]);
    // the escaped name is one cell: the table keeps its columns
    expect(files[1]).toEqual([
      expect.stringMatching(/night\\\|ly \\\*1\\\*\.csv$/),
      expect.stringMatching(/^\d+$/),
      '7',
      '6',
      '0',
      '0',
      '1',
      '2',
      '4',
      '0',
      'stayed',
    ]);
    expect(files[2]).toEqual([
      expect.stringMatching(/good\.csv$/),
      expect.stringMatching(/^\d+$/),
      '1',
      '1',
      '0',
      '0',
      '0',
      '1',
      '0',
      '0',
      'stayed',
    ]);

    const codes = tableUnder(doc, 'Error codes');
    expect(codes).toEqual([
      ['code', 'phase', 'rows', 'what'],
      ['INVALID\\_AMOUNT', 'VALIDATE', '2', 'rows ended ERROR'],
      ['22003', 'MERGE', '1', 'rows ended ERROR'],
      ['INVALID\\_CURRENCY', 'VALIDATE', '1', 'rows ended ERROR'],
      ['PARSE\\_FIELD\\_COUNT', 'PARSE', '1', 'lines rejected (no stage row)'],
    ]);
    const [first, second] = [files[1]?.[1] ?? '?', files[2]?.[1] ?? '?'];
    expect(doc).toContain(`- \`order-loader errors --load-id ${first} --load-id ${second}\` lists the rows`);

    // loaded again: skipped, no new errors of this run's loads, exit stays 2 (the rows are still ERROR)
    const again = await runCli(['load', good, '--db', db, '--format', 'markdown', '--log-level', 'silent']);
    expect(again.code).toBe(0);
    expect(again.stdout.split('\n')[0]).toBe('# order-loader load: every row DONE (exit 0)');
    expect(again.stdout).toContain('None: no row of these files is ERROR and no line was rejected.');
    expect(again.stdout).toMatch(/^- .*good\.csv.*already staged/m);
  });

  it('process and stage take it too; csv and json are refused for a report, markdown for errors', async () => {
    const { url: db } = await migratedPgliteDb();
    const file = writeTestFile(`${HEADER}\nMP-1,1,2026-01-01,10.00,EUR\nMP-2,2,2026-01-02,1.00,eur\n`);
    const stage = await runCli(['stage', file, '--db', db, '--format', 'markdown', '--log-level', 'silent']);
    expect(stage.code).toBe(0);
    expect(stage.stdout.split('\n')[0]).toBe('# order-loader stage: every row DONE (exit 0)');
    const processed = await runCli(['process', '--db', db, '--format', 'markdown', '--log-level', 'silent']);
    expect(processed.code).toBe(2);
    expect(processed.stdout.split('\n')[0]).toBe('# order-loader process: finished, some rows need a look (exit 2)');
    expect(processed.stdout).toContain('| 2 | 1 | 1 | 1 | 1 | 0 | 0 |');

    const csv = await runCli(['load', file, '--db', db, '--format', 'csv']);
    expect(csv.code).toBe(1);
    expect(humanLines(csv.stderr)).toEqual([
      'order-loader: load --format takes text or markdown (--format csv is for errors; --json gives JSON)',
    ]);
    const errors = await runCli(['errors', '--db', db, '--format', 'markdown']);
    expect(errors.code).toBe(1);
    expect(humanLines(errors.stderr)).toEqual(['order-loader: errors --format takes csv or json (not markdown)']);
  });

  it('the "went to" column says the folder a file was moved to; a file with no stage rows is listed under the table', () => {
    const file = {
      file: 'in/a.csv',
      loadId: 3,
      runId: 9,
      skipped: null,
      resumedAt: null,
      counts: { read: 1, inserted: 1, updated: 0, unchanged: 0, unchangedError: 0, duplicates: 0, rejected: 0 },
      tally: { DONE: 1 },
      unchangedDone: 0,
      stoppedAt: null,
    };
    const report: LoadReport = {
      command: 'load',
      earlierLoadRows: 0,
      files: [file, { ...file, file: 'in/b.csv' }, { ...file, file: 'in/c.csv' }],
      notRead: [{ file: 'in/d.csv', reason: 'still being written' }],
      unreadable: [
        { file: 'in/b.csv', reason: 'line 2: unterminated quote', movedTo: 'failed/b.csv' },
        { file: 'in/e.txt', reason: 'not an order file', movedTo: 'failed/e.txt' },
      ],
      archived: [{ file: 'in/a.csv', movedTo: 'archive/a_1.csv' }],
      empty: [],
      ignored: [],
      process: null,
      elapsedMs: 1,
      stageMs: 1,
      processMs: 0,
      aborted: null,
      retryWait: null,
      exitCode: 0,
    };
    const markdown = renderLoadMarkdown(report, [], new Date());
    const files = tableUnder(markdown, 'Files');
    expect(files.map((row) => row[10])).toEqual(['went to', 'archive: archive/a\\_1.csv', 'failed: failed/b.csv', 'stayed']);
    expect(markdown).toContain('- in/e.txt: cannot be read as an order file (not an order file): moved to failed/e.txt');
    expect(markdown).toContain('- in/d.csv: not read this time: still being written');
  });
});
