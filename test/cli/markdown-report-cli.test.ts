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

/** The lines of the first table after the line `heading`, alignment row included. */
function tableLinesUnder(doc: string, heading: string): string[] {
  const lines = doc.split('\n');
  const start = lines.indexOf(heading);
  expect(start).toBeGreaterThan(-1);
  const first = lines.findIndex((l, i) => i > start && l.startsWith('|'));
  const end = lines.findIndex((l, i) => i > first && !l.startsWith('|'));
  return lines.slice(first, end === -1 ? undefined : end);
}

/** The table after the line `heading`: its rows as cell lists, header first (the alignment row left out). */
function tableUnder(doc: string, heading: string): string[][] {
  return tableLinesUnder(doc, heading)
    .map(cells)
    .filter((_, i) => i !== 1);
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

    // this run's counts and the rows now: two tables, each under its own heading
    const files = tableUnder(doc, 'This run: lines of the file:');
    expect(files[0]).toEqual(['file', 'load', 'read', 'staged', 'unchanged', 'duplicates', 'rejected', 'went to']);
    // the name is one cell, a code span with only its `|` escaped: the table keeps its columns
    expect(files[1]).toEqual([
      expect.stringMatching(/night\\\|ly \*1\*\.csv`$/),
      expect.stringMatching(/^\d+$/),
      '7',
      '6',
      '0',
      '0',
      '1',
      'stayed',
    ]);
    expect(files[2]).toEqual([expect.stringMatching(/good\.csv`$/), expect.stringMatching(/^\d+$/), '1', '1', '0', '0', '0', 'stayed']);
    const now = tableUnder(doc, "The load's rows now:");
    expect(now[0]).toEqual(['file', 'load', 'DONE', 'ERROR', 'waiting']);
    expect(now.slice(1).map((row) => row.slice(2))).toEqual([
      ['2', '4', '0'],
      ['1', '0', '0'],
    ]);
    // read as plain text (cron mails it): every table's lines are as wide as each other
    for (const heading of ['This run: lines of the file:', "The load's rows now:", '## Error codes'])
      expect(new Set(tableLinesUnder(doc, heading).map((l) => l.length)).size).toBe(1);

    const codes = tableUnder(doc, '## Error codes');
    expect(codes).toEqual([
      ['code', 'phase', 'rows', 'what'],
      ['`INVALID_AMOUNT`', 'VALIDATE', '2', 'rows ended ERROR'],
      ['`22003`', 'MERGE', '1', 'rows ended ERROR'],
      ['`INVALID_CURRENCY`', 'VALIDATE', '1', 'rows ended ERROR'],
      ['`PARSE_FIELD_COUNT`', 'PARSE', '1', 'lines rejected (no stage row)'],
    ]);
    expect(doc).not.toMatch(/\\_/);
    const [first, second] = [files[1]?.[1] ?? '?', files[2]?.[1] ?? '?'];
    expect(doc).toContain(`- \`order-loader errors --load-id ${first} --load-id ${second}\` lists the rows`);

    // loaded again: skipped, no new errors of this run's loads, exit stays 2 (the rows are still ERROR)
    const again = await runCli(['load', good, '--db', db, '--format', 'markdown', '--log-level', 'silent']);
    expect(again.code).toBe(0);
    expect(again.stdout.split('\n')[0]).toBe('# order-loader load: every row DONE (exit 0)');
    expect(again.stdout).toContain('None: no row of these files is ERROR and no line was rejected.');
    expect(again.stdout).toMatch(/^- .*good\.csv.*already staged/m);
    // skipped reads as skipped, not as 0 lines read
    const skipped = tableUnder(again.stdout, 'This run: lines of the file:')[1];
    expect(skipped?.slice(2, 7)).toEqual(['skipped', '-', '-', '-', '-']);
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
    expect(processed.stdout).toMatch(/^\| +2 \| +1 \| +1 \| +1 \| +1 \| +0 \| +0 \|$/m);

    const csv = await runCli(['load', file, '--db', db, '--format', 'csv']);
    expect(csv.code).toBe(1);
    expect(humanLines(csv.stderr)).toEqual([
      'order-loader: load --format takes text or markdown (--format csv is for errors; --json gives JSON)',
    ]);
    const errors = await runCli(['errors', '--db', db, '--format', 'markdown']);
    expect(errors.code).toBe(1);
    expect(humanLines(errors.stderr)).toEqual(['order-loader: errors --format takes csv, excel or json (not markdown)']);
  });

  it('exit 1 without a report of its own (a missing inbox, a refused option): a Markdown report of the failure', async () => {
    const missing = `${writeTestFile('x')}-gone/in_box`;
    const r = await runCli(['load', missing, '--format', 'markdown', '--log-level', 'silent']);
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('# order-loader load: could not finish (exit 1)');
    expect(lines[2]).toMatch(/^Ended \d{4}-\d\d-\d\dT[\d:.]+Z, elapsed \d+\.\d\d s\.$/);
    // the path as it is: no backslash before its underscore
    expect(lines[4]).toBe(`**Failed:** ${missing}: no such file or directory (an input folder is never created: is it mounted?)`);
    expect(humanLines(r.stderr)).toEqual([
      `order-loader: ${missing}: no such file or directory (an input folder is never created: is it mounted?)`,
    ]);

    const refused = await runCli(['process', '--overlap', '--format', 'markdown']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('# order-loader process: could not finish (exit 1)');
    expect(refused.stdout).toContain('**Failed:** process does not take --overlap');
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
    const files = tableUnder(markdown, 'This run: lines of the file:');
    expect(files.map((row) => row[7])).toEqual(['went to', 'archive: `archive/a_1.csv`', 'failed: `failed/b.csv`', 'stayed']);
    expect(markdown).toContain('- `in/e.txt`: cannot be read as an order file (not an order file): moved to `failed/e.txt`');
    expect(markdown).toContain('- `in/d.csv`: not read this time: still being written');
  });
});
