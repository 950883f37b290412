/**
 * On PGlite a `load` writes most rows DONE in the staging batch that staged them (settled while
 * staging): that is staging's work, and the summary, the metrics file and the log say so. The
 * process rate counts only the rows processing claimed (it read 65 million rows/s for a phase that
 * claimed none).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HEADER, tempDir, writeTestFile } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { runCli } from '../support/cli-run.js';
import { NEEDS, unavailable } from '../support/requirements.js';

/** 30 lines: 27 that settle while staging, 3 whose lower-case currency fails validation in processing. */
const LINES = Array.from(
  { length: 30 },
  (_, i) => `SR-${String(i).padStart(3, '0')},${i + 1},2026-01-01,${i}.50,${i % 10 === 4 ? 'eur' : 'EUR'}`,
);

describe.skipIf(unavailable(NEEDS.cli))('rows settled while staging are counted as staging’s work (PGlite)', () => {
  it('the summary, the metrics file and the log give processing only the rows it claimed', async () => {
    const { url: db } = await migratedPgliteDb();
    const dir = tempDir();
    const metrics = join(dir, 'load.prom');
    const log = join(dir, 'load.log');
    const file = writeTestFile(`${HEADER}\n${LINES.join('\n')}\n`);
    const load = await runCli(['load', file, '--db', db, '--metrics-file', metrics, '--log-file', log]);
    expect(load.code, load.stderr).toBe(2);
    // every row is in the "processed" line, as before: 27 DONE, 3 ERROR
    expect(load.stdout).toContain('processed 30 rows in');
    expect(load.stdout).toMatch(/: 27 DONE, 3 ERROR/);
    const elapsed = load.stdout.split('\n').find((l) => l.startsWith('elapsed ')) ?? '';
    expect(elapsed).toMatch(
      /stage [\d.]+ s \(30 lines read, \d+ lines\/s, 27 rows settled\), process ([\d.]+) s \(3 rows, (\d+) rows\/s\)/,
    );
    const processRate = Number(/process [\d.]+ s \(3 rows, (\d+) rows\/s\)/.exec(elapsed)?.[1]);

    const text = readFileSync(metrics, 'utf8');
    const processPerSecond = Number(/order_loader_last_run_rows_per_second\{command="load",phase="process"\} (\S+)/.exec(text)?.[1]);
    const stagePerSecond = Number(/order_loader_last_run_rows_per_second\{command="load",phase="stage"\} (\S+)/.exec(text)?.[1]);
    // the same rate as the summary's: of the 3 rows processing claimed
    expect(Math.abs(processPerSecond - processRate)).toBeLessThanOrEqual(1);

    const ended = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.includes('ended with exit code'))
      .map((l) => JSON.parse(l) as { process: { claimed: number; settled: number }; rates?: Record<string, unknown> });
    expect(ended).toHaveLength(1);
    expect(ended[0]?.process).toMatchObject({ claimed: 30, settled: 27 });
    expect(ended[0]?.rates).toMatchObject({ stage: { lines: 30, settled: 27 }, process: { rows: 3 } });
    expect(stagePerSecond).toBeGreaterThan(0);
  });
});
