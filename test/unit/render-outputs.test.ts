import { describe, expect, it } from 'vitest';
import { escapeControl } from '../../src/cli/escape.js';
import { renderBench, renderLoadReport, renderManualChanges, renderProcessReport, renderRuns, renderStatus } from '../../src/cli/render.js';
import type { FileReport, LoadReport, ProcessReport } from '../../src/pipeline/load.js';
import type { RunEventRecord, RunRecord } from '../../src/engine/types.js';

const counts = { chunks: 63, claimed: 126_000, done: 126_000, error: 0, retryWait: 0, validateErrors: 0, mergeErrors: 0 };
const stageCounts = { read: 0, inserted: 0, updated: 0, unchanged: 0, unchangedError: 0, duplicates: 0, rejected: 0 };

function loadReport(over: Partial<LoadReport> = {}): LoadReport {
  return {
    command: 'load',
    files: [],
    process: counts,
    elapsedMs: 3000,
    stageMs: 1000,
    processMs: 2000,
    aborted: null,
    retryWait: null,
    earlierLoadRows: 0,
    notRead: [],
    unreadable: [],
    archived: [],
    empty: [],
    ignored: [],
    exitCode: 0,
    ...over,
  };
}

describe('escapeControl', () => {
  it('escapes C0, DEL, C1 and line separators; leaves printable text, backslashes and non-Latin text alone', () => {
    expect(escapeControl('a\nb\r\tc')).toBe('a\\nb\\r\\tc');
    expect(escapeControl('\x1b[31mred\x7f\x9b')).toBe('\\x1b[31mred\\x7f\\x9b');
    expect(escapeControl('x\u2028y\u202ez')).toBe('x\\u{2028}y\\u{202e}z');
    expect(escapeControl('C:\\data\\注文 ü.csv')).toBe('C:\\data\\注文 ü.csv');
  });
});

describe('human-readable outputs cannot be forged by a value holding a newline', () => {
  const key = 'K1\norder-loader: all rows DONE';

  it('status: the oldest READY key stays on its line', () => {
    const text = renderStatus({
      counts: [{ loadId: 1, status: 'READY', count: 1 }],
      oldestReady: { stageId: 7, sourceKey: key, stagedAt: new Date('2026-01-01T00:00:00Z') },
      retryWait: { count: 0, nextDueAt: null },
      oldestWaitingSince: new Date('2026-01-01T00:00:00Z'),
      loads: [{ loadId: 1, fileName: 'in/a.csv', startedAt: new Date('2026-01-01T00:00:00Z'), counts: { READY: 1 } }],
      otherLoads: 0,
    });
    expect(text.split('\n')).toHaveLength(4);
    expect(text).toContain('oldest READY: stage_id 7 (K1\\norder-loader: all rows DONE)');
    expect(text).not.toMatch(/^order-loader:/m);
  });

  it('retry: one line per changed row', () => {
    const text = renderManualChanges('retry', {
      dryRun: false,
      count: 1,
      changes: [
        {
          stageId: 7,
          sourceKey: key,
          action: 'RETRY',
          oldStatus: 'ERROR',
          newStatus: 'READY',
          values: { customerId: '1', orderDate: '2026-01-01', amount: '1', currency: 'JPY' },
          oldValues: '{"process_status":"ERROR"}',
          newValues: '{"process_status":"READY"}',
          operator: 'o',
          reason: 'r',
        },
      ],
    });
    expect(text.split('\n')).toHaveLength(2);
    expect(text).not.toMatch(/^order-loader:/m);
  });

  it('load summary and runs: a file name with a newline stays in its cell', () => {
    const file = 'a\nb.csv';
    const text = renderLoadReport(
      loadReport({
        files: [
          {
            file,
            loadId: 1,
            runId: 1,
            skipped: `${file}: already staged`,
            resumedAt: null,
            counts: stageCounts,
            tally: {},
            unchangedDone: 0,
            stoppedAt: null,
          },
        ],
      }),
    );
    expect(text).toContain('a\\nb.csv');
    expect(text.split('\n').filter((l) => l.startsWith('b.csv'))).toEqual([]);
    const runs = renderRuns([{ ...run(1), fileName: file, message: 'failed:\nforged', events: [] }]);
    expect(runs.split('\n')).toHaveLength(2);
  });
});

function run(runId: number): RunRecord {
  return {
    runId,
    command: 'retry',
    fileName: null,
    fileSize: null,
    fileSha256: null,
    host: 'h',
    pid: 1,
    status: 'COMPLETED',
    startedAt: new Date('2026-01-01T00:00:00Z'),
    finishedAt: new Date('2026-01-01T00:00:01Z'),
    counts: null,
    message: null,
  };
}

describe('rates in the load summary', () => {
  it('lines read per second of staging and rows processed per second of processing, each over its own time', () => {
    // a skipped file: nothing read, 126,000 rows processed in 2 s
    const text = renderLoadReport(loadReport());
    expect(text).toContain('elapsed 3.00 s: stage 1.00 s (0 lines read, 0 lines/s), process 2.00 s (126000 rows, 63000 rows/s)');
  });
});

describe('exit 2 because a file named on the command line was not read', () => {
  it('says the file and its reason, and no hint to look at rows in `errors`', () => {
    const reason = '/in/b.csv: still being written (size 75 → 120 bytes since it was listed): skipped this time';
    const text = renderLoadReport(loadReport({ exitCode: 2, notRead: [{ file: '/in/b.csv', reason, commandLine: true }] }));
    expect(text).toContain(reason);
    expect(text).not.toContain('some rows are ERROR');
    // a file of a folder left for the next run is not why a run exits 2: the hint stays for the rows
    const inbox = renderLoadReport(loadReport({ exitCode: 2, notRead: [{ file: '/in/b.csv', reason }] }));
    expect(inbox).toContain('some rows are ERROR');
  });
});

describe('the load summary tells this run from the rows now', () => {
  const file = (over: Partial<FileReport>): FileReport => ({
    file: 'in/a.csv',
    loadId: 1,
    runId: 2,
    skipped: null,
    resumedAt: null,
    counts: { ...stageCounts, read: 5, inserted: 4, rejected: 1 },
    tally: { DONE: 3, ERROR: 1 },
    unchangedDone: 0,
    stoppedAt: null,
    ...over,
  });

  it('two groups of columns under headings: the lines of this run, then the rows of the load now', () => {
    const lines = renderLoadReport(loadReport({ files: [file({})] })).split('\n');
    const header = lines[1] ?? '';
    expect(header).toMatch(/^file\s+load\s+read\s+staged\s+unchanged\s+duplicates\s+rejected\s+DONE\s+ERROR\s+waiting$/);
    // each heading starts above the first column of its group
    expect(lines[0]?.indexOf('this run: lines of the file')).toBe(header.indexOf('read'));
    expect(lines[0]?.indexOf("the load's rows now")).toBe(header.indexOf('DONE'));
    expect(lines[2]).toMatch(/^in\/a\.csv\s+1\s+5\s+4\s+0\s+0\s+1\s+3\s+1\s+0$/);
  });

  it('a skipped file reads as skipped, not as 0 lines read', () => {
    const skipped = file({
      file: 'in/b.csv',
      skipped: 'in/b.csv: already staged by load 1',
      counts: stageCounts,
      tally: { DONE: 2 },
    });
    const lines = renderLoadReport(loadReport({ files: [file({}), skipped] })).split('\n');
    expect(lines[3]).toMatch(/^in\/b\.csv\s+1\s+skipped\s+-\s+-\s+-\s+-\s+2\s+0\s+0$/);
    // the '-' stand where the numbers would
    expect(lines[3]?.lastIndexOf('-')).toBe((lines[2] ?? '').indexOf('1', (lines[1] ?? '').indexOf('rejected')));
  });

  it("the whole command's time with its parts: opening and migrating the database, staging, processing, the rest", () => {
    const text = renderLoadReport(loadReport(), { commandMs: 15_120, openMs: 11_000 });
    expect(text).toContain(
      'elapsed 15.12 s: open and migrate the database 11.00 s, stage 1.00 s (0 lines read, 0 lines/s), process 2.00 s (126000 rows, 63000 rows/s), other 1.12 s',
    );
  });
});

describe('runs on a terminal', () => {
  it('shows the events under each run, the last few with a count of the others', () => {
    const events: RunEventRecord[] = Array.from({ length: 9 }, (_, i) => ({
      runId: 4,
      seq: i + 1,
      event: i === 8 ? 'completed' : 'staged_checkpoint',
      detail: i === 8 ? null : { line: i },
      at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
    }));
    const text = renderRuns([
      { ...run(4), command: 'load', events },
      { ...run(3), events: [{ runId: 3, seq: 1, event: 'invoked', detail: null, at: new Date('2026-01-01T00:00:00Z') }] },
    ]);
    const lines = text.split('\n');
    expect(lines[1]).toMatch(/^\s*4\s+load\s+COMPLETED/);
    expect(lines[2]).toBe('      … 3 earlier events (runs --json shows every event)');
    expect(lines.slice(3, 9).map((l) => l.trim().split(/\s+/)[1])).toEqual([
      'staged_checkpoint',
      'staged_checkpoint',
      'staged_checkpoint',
      'staged_checkpoint',
      'staged_checkpoint',
      'completed',
    ]);
    expect(lines[3]).toContain('{"line":3}');
    expect(lines[9]).toMatch(/^\s*3\s+retry\s+COMPLETED/);
    expect(lines[10]).toBe('      2026-01-01T00:00:00.000Z  invoked');
  });
});

describe('process summary', () => {
  it('says how many rows wait in RETRY_WAIT and until when, when nothing was claimable', () => {
    const report: ProcessReport = {
      command: 'process',
      runId: 9,
      process: { ...counts, chunks: 0, claimed: 0, done: 0 },
      elapsedMs: 10,
      aborted: null,
      exitCode: 0,
      retryWait: { count: 3, nextDueAt: new Date('2026-01-01T01:00:00Z') },
    };
    expect(renderProcessReport(report)).toContain(
      '3 rows wait in RETRY_WAIT after a transient failure; the first is due 2026-01-01T01:00:00.000Z',
    );
  });
});

describe('bench summary', () => {
  it('says it was interrupted and which case was cut short', () => {
    const text = renderBench({
      engine: 'pglite',
      rows: 10,
      cases: [],
      skipped: [],
      interrupted: true,
      interruptedCase: { chunkSize: 500, workers: 1 },
      generated: { missing: 0, overflow: 0 },
      profile: null,
    });
    expect(text).toContain(
      'INTERRUPTED: chunk 500, 1 worker(s) was cut short and is not shown; the table and the chart hold only the 0 complete case(s)',
    );
  });
});
