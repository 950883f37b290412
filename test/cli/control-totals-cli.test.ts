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
  it('retry of a control-held load only: exit 0, it names the rows it left ERROR and why, in its output, summary and run', async () => {
    const db = (await migratedPgliteDb()).url;
    const dir = tempDir();
    const short = join(dir, 'BANK_20261210.txt');
    // three data records stated, two read, one of them with an amount that cannot be read: staged ERROR
    writeFileSync(short, 'D|RH-1|20261201|501|10.00\nD|RH-2|20261201|502|abc\nT|3|30.00\n');
    const held = await runCli(['load', short, '--profile', PROFILE, '--db', db, '--log-level', 'silent']);
    expect(held.code).toBe(1);
    const retry = await runCli(['retry', '--load-id', '1', '--set', 'amount=20.00', '--reason', 'amount confirmed', '--db', db]);
    expect(retry.code).toBe(0);
    expect(retry.stdout).toContain('retry: changed 0 rows');
    expect(retry.stdout).toContain('retry: left 1 ERROR row of load 1 as they are: the load is held for its control totals');
    // the summary line a scheduler's log keeps: what it left and why, not only "changed 0"
    const summary = retry.stderr.split('\n').find((l) => l.includes('retry ended with exit code 0'));
    expect(JSON.parse(summary ?? '{}')).toMatchObject({ changed: 0, controlHeld: [{ loadId: 1, rows: 1 }] });
    // the run's record says the same
    const runs = JSON.parse((await runCli(['runs', '--json', '--db', db, '--log-level', 'silent'])).stdout) as Array<{
      command: string;
      counts: Record<string, number>;
    }>;
    expect(runs.find((r) => r.command === 'retry')?.counts).toEqual({ retried: 0, controlHeld: 1 });
  });
  it('load --dry-run and preview check the control totals too: a truncated copy is not said to be fine', async () => {
    const dir = tempDir();
    const lines = readFileSync(example('BANK_20261207.txt'), 'utf8').split('\n');
    const truncated = join(dir, 'BANK_20261208.txt');
    writeFileSync(truncated, [lines[0], lines[1], lines[2], lines[4], ''].join('\n'));
    const quiet = ['--log-level', 'silent'];
    const good = await runCli(['load', '--dry-run', example('BANK_20261207.txt'), '--profile', PROFILE, ...quiet]);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('control totals agree: trailer (line 5) states count 3, sum 5380.50; read count 3, sum 5380.50');
    for (const args of [
      ['load', '--dry-run', truncated],
      ['preview', truncated, '--format', 'text'],
    ]) {
      const dry = await runCli([...args, '--profile', PROFILE, ...quiet]);
      expect(dry.code).toBe(1);
      // preview wraps its lines to the terminal's width
      expect(dry.stdout.replace(/\s+/g, ' ')).toMatch(
        /control totals DIFFER: trailer \(line 4\) states count 3, sum 5380\.50; read count 2, sum 4600\.50.*a load would stage its rows HELD/,
      );
    }
    const json = JSON.parse((await runCli(['load', '--dry-run', truncated, '--profile', PROFILE, '--json', ...quiet])).stdout) as {
      files: Array<{ control?: { status: string } }>;
    };
    expect(json.files[0]?.control?.status).toBe('mismatch');
    const previewed = JSON.parse((await runCli(['preview', truncated, '--profile', PROFILE, '--format', 'json', ...quiet])).stdout) as {
      control?: { status: string };
      exitCode: number;
    };
    expect(previewed).toMatchObject({ control: { status: 'mismatch' }, exitCode: 1 });
  });
});
