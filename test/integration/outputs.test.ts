/**
 * Counts and run records that tell the truth: the load summary of a reloaded file, what
 * `process` says about rows waiting in RETRY_WAIT, and a run of its own for every command that
 * changes data (init, recover, retry, bench).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { runBench } from '../../src/bench/run-bench.js';
import { parseCorrections } from '../../src/pipeline/corrections.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { orderFile, tempDir } from '../support/files.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url));
const operator = 'test-operator';

forEachTarget('outputs that tell the truth on $kind', (target) => {
  targetTest("a reloaded file's summary counts its rows by their status now, also the ones left untouched", async ({ db }) => {
    const { loader } = await db.open();
    const sample = await loader.load([fixture('orders-sample.csv')]);
    expect(sample.files[0]).toMatchObject({ tally: { DONE: 2, ERROR: 2 }, unchangedDone: 0 });

    // the corrected file fixes both; its two other rows are identical to DONE rows of the sample's load
    const corrected = await loader.load([fixture('orders-corrected.csv')]);
    expect(corrected.files[0]).toMatchObject({ counts: { updated: 2, unchanged: 2 }, tally: { DONE: 4 }, unchangedDone: 2 });
    expect(corrected.files[0]?.tally.ERROR ?? 0).toBe(0);

    // the same file again: staging skipped, its rows still reported as they are
    const again = await loader.load([fixture('orders-corrected.csv')]);
    expect(again.files[0]?.skipped).toContain('staging skipped');
    expect(again.files[0]).toMatchObject({ tally: { DONE: 4 }, unchangedDone: 2 });

    // the same rows in another file (another sha256: CRLF line ends): all unchanged, all DONE
    const copy = `${tempDir()}/copy.csv`;
    writeFileSync(copy, readFileSync(fixture('orders-corrected.csv'), 'utf8').replace(/\n/g, '\r\n'));
    const copied = await loader.load([copy]);
    expect(copied.files[0]).toMatchObject({ counts: { unchanged: 4, inserted: 0, updated: 0 }, tally: { DONE: 4 }, unchangedDone: 4 });
    expect(copied.exitCode).toBe(0);
    // the run's recorded counts say the same
    const runs = await loader.runs(1);
    expect(runs[0]?.counts).toMatchObject({ status_DONE: 4, unchanged: 4 });
  });

  targetTest('process says how many rows wait in RETRY_WAIT and until when, when nothing is claimable now', async ({ db }) => {
    const { loader } = await db.open();
    await loader.stage([
      orderFile([
        ['W-1', '1', '2026-01-01', '10', 'JPY'],
        ['W-2', '1', '2026-01-01', '20', 'JPY'],
        ['R-1', '1', '2026-01-01', '30', 'JPY'],
      ]),
    ]);
    await db.sql(
      "UPDATE order_stage SET process_status = 'RETRY_WAIT', attempt_count = 1, next_attempt_at = now() + interval '1 hour' WHERE source_key IN ('W-1', 'W-2')",
    );
    const report = await loader.process();
    expect(report.process.claimed).toBe(1);
    expect(report.retryWait.count).toBe(2);
    const due = report.retryWait.nextDueAt?.getTime() ?? 0;
    expect(due).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(due).toBeLessThan(Date.now() + 70 * 60_000);
    // nothing claimable at all: still said
    const idle = await loader.process();
    expect(idle).toMatchObject({ process: { claimed: 0 }, retryWait: { count: 2 } });
  });

  targetTest('init, recover, retry (with and without processing) each leave a run of their own name with its events', async ({ db }) => {
    const { loader } = await db.open();
    expect(await loader.init()).toEqual([]);
    await loader.load([fixture('orders-sample.csv')]);
    await loader.recover({ olderThanMs: 60_000, operator, reason: 'nothing stuck', dryRun: false });
    await loader.retry(
      {
        selector: { sourceKeys: ['SRC-102'] },
        all: false,
        corrections: parseCorrections(['amount=3500']),
        reason: 'resent',
        operator,
        dryRun: false,
      },
      { process: false },
    );
    const processed = await loader.retry({
      selector: { sourceKeys: ['SRC-103'] },
      all: false,
      corrections: parseCorrections(['amount=5000']),
      reason: 'resent',
      operator,
      dryRun: false,
    });
    // dry runs change nothing and record nothing
    await loader.recover({ olderThanMs: 60_000, operator, reason: 'look', dryRun: true });
    await loader.retry({ selector: { sourceKeys: ['SRC-101'] }, all: false, corrections: {}, reason: 'look', operator, dryRun: true });

    const runs = (await loader.runs(10)).reverse();
    expect(runs.map((r) => [r.command, r.status])).toEqual([
      ['init', 'COMPLETED'],
      ['load', 'COMPLETED'],
      ['recover', 'COMPLETED'],
      ['retry', 'COMPLETED'],
      ['retry', 'COMPLETED'],
    ]);
    const [init, , recover, retryOnly, retryProcess] = runs;
    expect(init?.events.map((e) => e.event)).toEqual(['invoked', 'migrated', 'completed']);
    expect(init?.events[1]?.detail).toEqual({ applied: [] });
    expect(recover?.events.map((e) => e.event)).toEqual(['invoked', 'recovered', 'completed']);
    expect(recover?.events[0]?.detail).toMatchObject({ operator, reason: 'nothing stuck' });
    expect(retryOnly?.events.map((e) => e.event)).toEqual(['invoked', 'retried', 'completed']);
    expect(retryOnly?.counts).toEqual({ retried: 1 });
    // the processing is part of the retry run: no separate `process` run
    expect(retryProcess?.events.map((e) => e.event)).toEqual(['invoked', 'retried', 'processed', 'completed']);
    expect(retryProcess?.counts).toMatchObject({ retried: 1, claimed: 2, done: 2 });
    expect(processed.process?.runId).toBe(retryProcess?.runId);
  });

  targetTest('a retry whose processing fails ends its own run FAILED with the reason', async ({ db }) => {
    const { loader } = await db.open();
    await loader.load([fixture('orders-sample.csv')]);
    // interrupted once its processing starts: the rows were retried, their processing stops
    const controller = new AbortController();
    const result = await loader.retry(
      {
        selector: { sourceKeys: ['SRC-102'] },
        all: false,
        corrections: parseCorrections(['amount=3500']),
        reason: 'resent',
        operator,
        dryRun: false,
      },
      { signal: controller.signal, onProcessStart: () => controller.abort() },
    );
    expect(result.process?.aborted).toContain('interrupted');
    const [run] = await loader.runs(1);
    expect(run).toMatchObject({ command: 'retry', status: 'FAILED' });
    expect(run?.events.map((e) => e.event)).toEqual(['invoked', 'retried', 'processed', 'failed']);
  });

  targetTest.skipIf(target.kind === 'oracle')(
    "bench leaves a bench run with one event per complete case, in the loader's history",
    async ({ db }) => {
      const { loader, logs } = await db.open();
      const report = await runBench(loader.engine, {
        rows: 300,
        chunkSizes: [100, 200],
        workers: [1],
        batchSize: 100,
        logger: logs.logger,
      });
      expect(report.cases).toHaveLength(2);
      const runs = await loader.runs(5);
      expect(runs.map((r) => r.command)).toEqual(['bench']);
      expect(runs[0]?.status).toBe('COMPLETED');
      expect(runs[0]?.events.map((e) => e.event)).toEqual(['invoked', 'case', 'case', 'completed']);
      expect(runs[0]?.events[1]?.detail).toMatchObject({ chunkSize: 100, workers: 1, rows: 300 });
    },
  );
});
