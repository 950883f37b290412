/**
 * The moves after a run (src/pipeline/load-moves.ts) leave a file whose load an unfinished file
 * set still holds where it is, archived or not, readable or not: moved under another name, no
 * run could stage that set whole again and its rows would stay HELD. Each such file is said once
 * (report and log) and counted (the run exits 2); the other files move as before.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { moveFiles } from '../../src/pipeline/load-moves.js';
import { DEFAULT_LOAD_OPTIONS, type FileReport, type LoadOptions } from '../../src/pipeline/load-options.js';
import type { SetAside } from '../../src/pipeline/load-checks.js';
import { emptyStageCounts } from '../../src/pipeline/stage.js';
import { memoryLogger } from '../support/memory-logger.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folders(): { inbox: string; archive: string; failed: string } {
  const base = mkdtempSync(join(tmpdir(), 'moves-held-'));
  dirs.push(base);
  const f = { inbox: join(base, 'inbox'), archive: join(base, 'archive'), failed: join(base, 'failed') };
  for (const d of Object.values(f)) mkdirSync(d);
  return f;
}

function report(file: string, loadId: number, stoppedAt: FileReport['stoppedAt'] = null): FileReport {
  writeFileSync(file, 'source_key,customer_id,order_date,amount,currency\n');
  return {
    file,
    loadId,
    runId: loadId,
    skipped: null,
    resumedAt: null,
    counts: emptyStageCounts(),
    tally: {},
    unchangedDone: 0,
    stoppedAt,
  };
}

function aside(): SetAside {
  return { notRead: [], unreadable: [], empty: [], unmatched: [], controlRefused: [] };
}

describe('moveFiles with loads an unfinished set holds', () => {
  it('--archive-dir: the held file stays, the other is archived; the held one is said once', async () => {
    const f = folders();
    const logs = memoryLogger();
    const options: LoadOptions = { ...DEFAULT_LOAD_OPTIONS, logger: logs.logger, archiveDir: f.archive };
    const reports = [report(join(f.inbox, 'a.csv'), 1), report(join(f.inbox, 'c.csv'), 3)];
    const moved = await moveFiles(reports, aside(), new Map(), null, options, new Map([[1, ['b.csv']]]));
    expect(readdirSync(f.inbox)).toEqual(['a.csv']);
    expect(moved.archived.map((a) => a.file)).toEqual([join(f.inbox, 'c.csv')]);
    const said = `${join(f.inbox, 'a.csv')}: left where it is, not archived: load 1 is held by the file set of a run stopped before it staged them all, and only a run that stages this file (under this name) with b.csv completes that set and releases its rows`;
    expect(moved.kept).toEqual([{ file: join(f.inbox, 'a.csv'), loadId: 1, missing: ['b.csv'], reason: said }]);
    expect(logs.records.filter((r) => r.msg === said)).toHaveLength(1);
  });

  it('--failed-dir: a held file that cannot be read past a line stays too; one no set holds is moved', async () => {
    const f = folders();
    const options: LoadOptions = { ...DEFAULT_LOAD_OPTIONS, logger: memoryLogger().logger, failedDir: f.failed, archiveDir: f.archive };
    const set = aside();
    const stop = { line: 3, message: 'unterminated quote' };
    const reports = [report(join(f.inbox, 'a.csv'), 1, stop), report(join(f.inbox, 'x.csv'), 4, stop)];
    const moved = await moveFiles(reports, set, new Map(), null, options, new Map([[1, ['b.csv', 'c.csv']]]));
    expect(moved.kept.map((k) => k.file)).toEqual([join(f.inbox, 'a.csv')]);
    expect(readdirSync(f.inbox)).toEqual(['a.csv']);
    expect(readdirSync(f.failed).filter((n) => n.endsWith('x.csv'))).toHaveLength(1);
    expect(set.unreadable.find((u) => u.file === join(f.inbox, 'a.csv'))?.movedTo).toBeNull();
    expect(moved.kept[0]?.reason).toContain('a.csv: left where it is, not moved to --failed-dir: load 1 is held');
  });

  it('no held load: every file moves as before, nothing kept', async () => {
    const f = folders();
    const options: LoadOptions = { ...DEFAULT_LOAD_OPTIONS, logger: memoryLogger().logger, archiveDir: f.archive };
    const moved = await moveFiles([report(join(f.inbox, 'a.csv'), 1)], aside(), new Map(), null, options, new Map());
    expect(moved.kept).toEqual([]);
    expect(readdirSync(f.inbox)).toEqual([]);
  });
});
