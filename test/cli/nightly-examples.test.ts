/**
 * The recipes under examples/ (docs/nightly.md) do what they say: the crontab line
 * and the systemd unit's command run as written (their fixed paths moved into a temporary
 * folder, PGlite as the database), the units pass `systemd-analyze verify`, and the alert rules
 * are YAML whose expressions select metrics and labels the metrics writer really emits.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { HEADER, tempDir } from '../support/files.js';
import { CLEAN_ENV, CLI as cli, REPO_ROOT } from '../support/cli-run.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { renderMetrics } from '../../src/cli/metrics-file.js';
import type { LoadReport } from '../../src/pipeline/load.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const example = (path: string) => readFileSync(join(REPO_ROOT, 'examples', path), 'utf8');

/** The recipe's fixed paths, moved into `root`. */
function relocate(command: string, root: string): string {
  return command
    .replaceAll('/usr/local/bin/order-loader', `${process.execPath} ${cli}`)
    .replaceAll('/srv/orders', join(root, 'orders'))
    .replaceAll('/etc/order-loader/env', join(root, 'env'))
    .replaceAll('/var/log/order-loader', join(root, 'log'))
    .replaceAll('/var/lib/prometheus/node-exporter', join(root, 'textfile'));
}

/**
 * A night's folder: an inbox with one file, the env file, the log and textfile folders. The
 * database is a copy of a migrated PGlite folder, as after the first night: the recipes are the
 * subject here, a new folder's first open is first-hour.test.ts's (it would cost each child
 * process PGlite's initdb, about 7 s of CPU).
 */
async function night(): Promise<string> {
  const root = tempDir();
  const { url } = await migratedPgliteDb();
  for (const dir of ['orders/inbox', 'log', 'textfile']) mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, 'orders/inbox/orders-1.csv'), `${HEADER}\nNX-1,1,2026-01-01,10.00,EUR\nNX-2,2,2026-01-02,20.00,EUR\n`);
  // uploaded in the evening: out of the recipes' quiet period (--settle, 30 s by default)
  const evening = new Date(Date.now() - 6 * 3600_000);
  utimesSync(join(root, 'orders/inbox/orders-1.csv'), evening, evening);
  writeFileSync(join(root, 'env'), `ORDER_LOADER_DB=${url}\nORDER_LOADER_DB_PASSWORD=\n`);
  return root;
}

function expectNightDone(root: string, result: { status: number | null; stdout: string }): void {
  expect(result.status).toBe(0);
  expect(result.stdout.split('\n')[0]).toBe('# order-loader load: every row DONE (exit 0)');
  const metrics = parsePrometheusTextFormat(readFileSync(join(root, 'textfile/order-loader-load.prom'), 'utf8'));
  const rows = metrics.find((f) => f.name === 'order_loader_last_run_rows')?.metrics.find((m) => m.labels?.status === 'DONE');
  expect(rows?.value).toBe('2');
  const archived = metrics.find((f) => f.name === 'order_loader_last_run_files')?.metrics.find((m) => m.labels?.outcome === 'archived');
  expect(archived?.value).toBe('1');
  // the loaded file left the inbox for the archive, under its load's name
  expect(readdirSync(join(root, 'orders/inbox')).filter((f) => !f.startsWith('.'))).toEqual(['archive', 'failed']);
  expect(readdirSync(join(root, 'orders/inbox/archive'))).toEqual(['load1-orders-1.csv']);
  expect(result.stdout).toContain('| archive: ');
}

describe.skipIf(unavailable(NEEDS.cli))('examples/ (the nightly recipes)', () => {
  it('the crontab line runs as written', async () => {
    const lines = example('cron/order-loader.crontab')
      .split('\n')
      .filter((l) => /^[\d*]/.test(l));
    expect(lines).toHaveLength(1);
    const [minute, hour, ...rest] = (lines[0] ?? '').split(' ');
    expect([minute, hour]).toEqual(['30', '2']);
    const command = rest.slice(3).join(' ');
    expect(command).not.toContain('%'); // cron would make it a newline
    const root = await night();
    const result = spawnSync('/bin/sh', ['-c', relocate(command, root)], { encoding: 'utf8', env: CLEAN_ENV, timeout: 120_000 });
    expect(result.stderr).toBe('');
    expectNightDone(root, result);
    expect(readFileSync(join(root, 'log/load.log'), 'utf8')).toContain('"msg":"load ended with exit code 0"');
  });

  it("the systemd service's command runs as written, in its WorkingDirectory with its EnvironmentFile", async () => {
    const unit = example('systemd/order-loader-import.service');
    const value = (key: string) => new RegExp(`^${key}=(.*)$`, 'm').exec(unit)?.[1] ?? '';
    const exec = /^\/bin\/sh -c '(.*)'$/.exec(value('ExecStart'))?.[1] ?? '';
    expect(exec).not.toBe('');
    expect(value('SuccessExitStatus')).toBe('2');
    const root = await night();
    const env = Object.fromEntries(
      readFileSync(relocate(value('EnvironmentFile'), root), 'utf8')
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    const result = spawnSync('/bin/sh', ['-c', relocate(exec, root)], {
      cwd: relocate(value('WorkingDirectory'), root),
      encoding: 'utf8',
      env: { ...CLEAN_ENV, ...env },
      timeout: 120_000,
    });
    expectNightDone(root, result);
  });

  const analyze = spawnSync('systemd-analyze', ['--version']).status === 0;
  it.skipIf(!analyze)('the service and timer pass systemd-analyze verify', () => {
    const dir = join(REPO_ROOT, 'examples/systemd');
    const result = spawnSync('systemd-analyze', ['verify', './order-loader-import.service', './order-loader-import.timer'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('the alert rules: YAML of rule groups whose selectors match what the metrics file holds', () => {
    const rules = parse(example('prometheus/order-loader-alerts.yml')) as {
      groups: Array<{ name: string; rules: Array<{ alert: string; expr: string; for?: string; labels: object; annotations: object }> }>;
    };
    expect(rules.groups).toHaveLength(1);
    const all = rules.groups[0]?.rules ?? [];
    expect(all.map((r) => r.alert)).toEqual([
      'OrderLoaderNoSuccessfulRun',
      'OrderLoaderNeverSucceeded',
      'OrderLoaderRunFailed',
      'OrderLoaderErrorRows',
      'OrderLoaderRowsWaiting',
      'OrderLoaderRowsHeld',
      'OrderLoaderUnmatchedFiles',
    ]);
    // a finished load's metrics file: every selector of every rule must find a sample in it
    const report: LoadReport = {
      command: 'load',
      earlierLoadRows: 0,
      files: [],
      process: null,
      elapsedMs: 1,
      stageMs: 1,
      processMs: 0,
      aborted: null,
      retryWait: null,
      exitCode: 2,
      notRead: [],
      unreadable: [],
      archived: [],
      empty: [],
      ignored: [],
    };
    const families = parsePrometheusTextFormat(
      renderMetrics(
        {
          command: 'load',
          exitCode: 2,
          durationMs: 1,
          finishedAt: new Date(),
          report,
          state: { readAt: new Date(), rows: { ERROR: 3 }, oldestWaitingSince: null },
        },
        null,
      ),
    );
    for (const rule of all) {
      expect(typeof rule.expr).toBe('string');
      const selectors = [...rule.expr.matchAll(/(order_loader_[a-z_]+)(?:\{([^}]*)\})?/g)];
      expect(selectors.length).toBeGreaterThan(0);
      for (const selector of selectors) {
        const name = selector[1] ?? '';
        const labels = selector[2] ?? '';
        const family = families.find((f) => f.name === name);
        expect(family, `${rule.alert}: ${name}`).toBeDefined();
        const wanted = new Map([...labels.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
        const match = family?.metrics.some((m) => [...wanted].every(([k, v]) => m.labels?.[k] === v));
        expect(match, `${rule.alert}: ${name}{${labels}}`).toBe(true);
      }
    }
  });
});
