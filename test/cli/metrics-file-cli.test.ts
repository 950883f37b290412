/**
 * --metrics-file: a real load (PGlite, and PostgreSQL when ORDER_LOADER_TEST_PG is set) writes
 * a file that a Prometheus text-format parser reads, with the numbers of that run; a later run
 * that cannot finish keeps the last success of the one before.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { HEADER, tempDir, writeTestFile } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { runCli } from '../support/cli-run.js';
import { serverPgTarget } from '../support/databases.js';
import { CONTROL_ONLY, METRIC_FAMILIES, ROUTED_ONLY, type MetricName } from '../../src/cli/metrics-file.js';
import { NEEDS, unavailable } from '../support/requirements.js';

/** A metric's samples as [labels, value] (the parser gives values as text, as prom2json does). */
function samples(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const family = parsePrometheusTextFormat(text).find((f) => f.name === name);
  if (family === undefined) throw new Error(`${name} is not in the file`);
  expect(family.type).toBe('GAUGE');
  return family.metrics.map((m) => ({ labels: m.labels ?? {}, value: Number(m.value) }));
}
const value = (text: string, name: string, labels: Record<string, string>) =>
  samples(text, name).find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

/** 3 good rows, 1 line rejected (field count), 2 failing validation, 1 refused by the database (overflow). */
const FILE_LINES = [
  HEADER,
  'MF-1,1,2026-01-01,10.00,EUR',
  'MF-2,2,2026-01-02,20.00,EUR',
  'MF-3,3,2026-01-03,30.00,EUR',
  'MF-4,4,2026-01-04',
  'MF-5,5,2026-01-05,-1.00,EUR',
  'MF-6,6,2026-01-06,1.00,eur',
  'MF-7,7,2026-01-07,12345678901.00,EUR',
];

const targets: Array<[string, () => Promise<string>]> = [['pglite', async () => (await migratedPgliteDb()).url]];
const pg = serverPgTarget();
if (pg !== null) targets.push(['postgres', async () => (await pg.create()).url ?? '']);

describe.skipIf(unavailable(NEEDS.cli))('--metrics-file (built CLI)', () => {
  it.each(targets)('%s: the numbers of a real load, in a file the format parser reads', async (_kind, database) => {
    const db = await database();
    const dir = tempDir();
    const metrics = join(dir, 'order-loader.prom');
    const file = writeTestFile(`${FILE_LINES.join('\n')}\n`);
    const before = Date.now() / 1000;
    const load = await runCli(['load', file, '--db', db, '--metrics-file', metrics, '--json', '--log-level', 'silent']);
    expect(load.stderr).toBe('');
    expect(load.code).toBe(2);
    const report = JSON.parse(load.stdout) as {
      files: Array<{ counts: { read: number; rejected: number }; tally: Record<string, number> }>;
      process: { claimed: number; validateErrors: number; mergeErrors: number; retryWait: number };
    };
    const text = readFileSync(metrics, 'utf8');
    // every family the writer promises, each parsed as a gauge (those of a run routed by --profiles:
    // test/cli/profile-routing-cli.test.ts), and those only
    for (const name of Object.keys(METRIC_FAMILIES))
      if (!ROUTED_ONLY.includes(name as MetricName) && !CONTROL_ONLY.includes(name as MetricName))
        expect(samples(text, name).length).toBeGreaterThan(0);
    for (const name of [...ROUTED_ONLY, ...CONTROL_ONLY]) expect(text).not.toContain(name);
    expect(value(text, 'order_loader_last_run_exit_code', { command: 'load' })).toBe(2);
    expect(value(text, 'order_loader_last_run_rows', { command: 'load', status: 'DONE' })).toBe(3);
    expect(value(text, 'order_loader_last_run_rows', { command: 'load', status: 'ERROR' })).toBe(3);
    expect(value(text, 'order_loader_last_run_rows', { command: 'load', status: 'RETRY_WAIT' })).toBe(0);
    expect(value(text, 'order_loader_last_run_failed_rows', { command: 'load', phase: 'PARSE' })).toBe(1);
    expect(value(text, 'order_loader_last_run_failed_rows', { command: 'load', phase: 'VALIDATE' })).toBe(2);
    expect(value(text, 'order_loader_last_run_failed_rows', { command: 'load', phase: 'MERGE' })).toBe(1);
    // the same numbers as the run's own report
    expect(report.files[0]?.tally.DONE).toBe(3);
    expect(report.files[0]?.counts.rejected).toBe(1);
    expect(report.process.validateErrors).toBe(2);
    expect(value(text, 'order_loader_last_run_files', { command: 'load', outcome: 'loaded' })).toBe(1);
    expect(value(text, 'order_loader_last_run_files', { command: 'load', outcome: 'archived' })).toBe(0);
    expect(value(text, 'order_loader_last_run_files', { command: 'load', outcome: 'failed' })).toBe(0);
    expect(value(text, 'order_loader_last_run_rows_per_second', { command: 'load', phase: 'process' })).toBeGreaterThan(0);
    const ended = value(text, 'order_loader_last_run_timestamp_seconds', { command: 'load' }) ?? 0;
    expect(ended).toBeGreaterThanOrEqual(before);
    expect(ended).toBeLessThanOrEqual(Date.now() / 1000);
    expect(value(text, 'order_loader_last_success_timestamp_seconds', { command: 'load' })).toBe(ended);
    const duration = value(text, 'order_loader_last_run_duration_seconds', { command: 'load' }) ?? -1;
    expect(duration).toBeGreaterThan(0);
    expect(duration).toBeLessThan(Date.now() / 1000 - before + 1);
    // no temporary file left beside it
    expect(readdirSync(dir)).toEqual(['order-loader.prom']);

    // a run that cannot finish: exit 1 in the file, the last success of the run before kept
    const failed = await runCli([
      'load',
      file,
      '--db',
      'postgres://loader@127.0.0.1:1/nowhere',
      '--connect-timeout',
      '0',
      '--metrics-file',
      metrics,
    ]);
    expect(failed.code).toBe(1);
    const after = readFileSync(metrics, 'utf8');
    expect(value(after, 'order_loader_last_run_exit_code', { command: 'load' })).toBe(1);
    expect(value(after, 'order_loader_last_run_timestamp_seconds', { command: 'load' })).toBeGreaterThan(ended);
    expect(value(after, 'order_loader_last_success_timestamp_seconds', { command: 'load' })).toBe(ended);
    expect(value(after, 'order_loader_last_run_rows', { command: 'load', status: 'DONE' })).toBe(0);
  });

  it('a run stopped by --max-errors (exit 1, with a report) writes what it did, not 0, and no last success', async () => {
    const { url: db } = await migratedPgliteDb();
    const metrics = join(tempDir(), 'stopped.prom');
    const file = writeTestFile(`${FILE_LINES.join('\n')}\n`);
    const load = await runCli(['load', file, '--db', db, '--max-errors', '0', '--metrics-file', metrics, '--log-level', 'silent']);
    expect(load.code).toBe(1);
    expect(load.stdout).toContain('NOT FINISHED: stopped: more than --max-errors 0 rows rejected');
    const text = readFileSync(metrics, 'utf8');
    expect(value(text, 'order_loader_last_run_exit_code', { command: 'load' })).toBe(1);
    expect(value(text, 'order_loader_last_run_failed_rows', { command: 'load', phase: 'PARSE' })).toBe(1);
    expect(value(text, 'order_loader_last_run_files', { command: 'load', outcome: 'loaded' })).toBe(1);
    expect(value(text, 'order_loader_rows', { command: 'load', status: 'READY' })).toBeGreaterThan(0);
    expect(text).not.toContain('order_loader_last_success_timestamp_seconds{');
  });

  it('process writes its own numbers; a folder that does not exist is said, the exit code stays', async () => {
    const { url: db } = await migratedPgliteDb();
    const file = writeTestFile(`${FILE_LINES.slice(0, 3).join('\n')}\n`);
    expect((await runCli(['stage', file, '--db', db, '--log-level', 'silent'])).code).toBe(0);
    const metrics = join(tempDir(), 'process.prom');
    const processed = await runCli(['process', '--db', db, '--metrics-file', metrics, '--log-level', 'silent']);
    expect(processed.code).toBe(0);
    const text = readFileSync(metrics, 'utf8');
    expect(value(text, 'order_loader_last_run_rows', { command: 'process', status: 'DONE' })).toBe(2);
    expect(value(text, 'order_loader_last_run_exit_code', { command: 'process' })).toBe(0);

    const nowhere = join(tempDir(), 'missing', 'x.prom');
    const status = await runCli(['status', '--db', db, '--metrics-file', nowhere, '--log-level', 'silent']);
    expect(status.code).toBe(0);
    expect(status.stderr).toBe(`order-loader: cannot write --metrics-file ${nowhere} (ENOENT)\n`);
  });
});
