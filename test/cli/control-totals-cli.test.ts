/**
 * Control totals from the command line: the example bank file with its trailer loads (exit 0);
 * a truncated copy of it is held with exit 1 (text report, markdown summary and metrics file say
 * which file, what it stated and what was read), stays HELD through a rerun and `recover`, and
 * `accept` releases it; a copy without its trailer is refused before staging.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { REPO_ROOT, runCli } from '../support/cli-run.js';
import { NEEDS, unavailable } from '../support/requirements.js';

const example = (name: string) => join(REPO_ROOT, 'examples/profiles', name);
const PROFILE = example('bank-trailer.yaml');

describe.skipIf(unavailable(NEEDS.cli))('control totals on the command line', () => {
  it('the example loads; a truncated copy is held with exit 1 until accept; one without its trailer is refused', async () => {
    const db = (await migratedPgliteDb()).url;
    const dir = tempDir();
    const quiet = ['--db', db, '--log-level', 'silent'];
    const good = await runCli(['load', example('BANK_20261207.txt'), '--profile', PROFILE, ...quiet]);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('control totals agree: trailer (line 5) states count 3, sum 5380.50; read count 3, sum 5380.50');

    const lines = readFileSync(example('BANK_20261207.txt'), 'utf8').split('\n');
    const truncated = join(dir, 'BANK_20261208.txt');
    writeFileSync(truncated, [lines[0], lines[1], lines[2], lines[4], ''].join('\n').replaceAll('BK-10', 'BK-20'));
    const metrics = join(dir, 'order-loader.prom');
    const held = await runCli(['load', truncated, '--profile', PROFILE, '--format', 'markdown', '--metrics-file', metrics, ...quiet]);
    expect(held.code).toBe(1);
    expect(held.stdout).toContain('# order-loader load: a file failed its control totals: nothing of it merged (exit 1)');
    expect(held.stdout).toContain('## Control totals');
    expect(held.stdout).toMatch(
      /trailer \(line 4\) states count 3, sum 5380\.50; read count 2, sum 4600\.50 .*NOT MERGED: its rows stay HELD in load 2/,
    );
    const family = parsePrometheusTextFormat(readFileSync(metrics, 'utf8')).find((f) => f.name === 'order_loader_last_run_control_totals');
    const figures = Object.fromEntries(
      (family?.metrics ?? []).map((m) => [`${m.labels?.figure ?? ''}/${m.labels?.side ?? ''}`, Number(m.value)]),
    );
    expect(figures).toEqual({ 'count/stated': 3, 'count/read': 2, 'sum/stated': 5380.5, 'sum/read': 4600.5 });
    expect(family?.metrics[0]?.labels).toMatchObject({ file: 'BANK_20261208.txt', status: 'mismatch' });

    expect((await runCli(['load', truncated, '--profile', PROFILE, ...quiet])).code).toBe(1);
    const recover = await runCli(['recover', '--older-than', '0s', ...quiet]);
    expect(recover.stdout).toContain('recover: kept 2 HELD rows of load 2');
    const status = await runCli(['status', '--json', ...quiet]);
    expect(status.stdout).toContain('"HELD":2');

    expect((await runCli(['accept', '2', ...quiet])).code).toBe(1); // no --reason
    const accepted = await runCli(['accept', '2', '--reason', 'partner confirmed', ...quiet]);
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain('accept: load 2: released 2 HELD rows to processing (audited)');
    expect(accepted.stdout).toMatch(/processed 2 rows in 1 chunks: 2 DONE/);

    const cut = join(dir, 'BANK_20261209.txt');
    writeFileSync(cut, lines.slice(0, 3).join('\n').replaceAll('BK-10', 'BK-30'));
    const refused = await runCli(['load', cut, '--profile', PROFILE, ...quiet]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/BANK_20261209\.txt: control totals cannot be checked: .*no trailer record .*REFUSED before staging/);
  });
});
