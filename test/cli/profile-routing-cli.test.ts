/**
 * `load inbox --profiles profiles/` on the command line, on PGlite: each partner's
 * file read with the profile its name matches, a file none matches moved to --failed-dir or left
 * in the inbox (exit 2), the profile of each file in the Markdown report, the metrics file and
 * `runs`; a configuration that cannot route (two profiles for one name, a bad profile, a profile
 * without match:, --profile with --profiles) refused in one line before any database is made.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CONTROL_ONLY, METRIC_FAMILIES, type MetricName } from '../../src/cli/metrics-file.js';
import { humanLines } from '../support/cli-output.js';
import { CLI, runCli } from '../support/cli-run.js';
import { HEADER, tempDir } from '../support/files.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';

const EXAMPLES = 'examples/profiles';

/** A partners' folder: profiles/ with the EU and legacy profiles, inbox/ with a file of each and one nobody's. */
function partners(): { root: string; inbox: string; profiles: string; eu: string; legacy: string; stray: string } {
  const root = tempDir();
  const inbox = join(root, 'inbox');
  const profiles = join(root, 'profiles');
  mkdirSync(inbox);
  mkdirSync(profiles);
  copyFileSync(join(EXAMPLES, 'eu-erp.yaml'), join(profiles, 'eu-erp.yaml'));
  copyFileSync(join(EXAMPLES, 'headerless.yaml'), join(profiles, 'legacy.yml'));
  const eu = join(inbox, 'EU_ORDERS_20261201.csv');
  copyFileSync(join(EXAMPLES, 'eu-erp.csv'), eu);
  const legacy = join(inbox, 'JP_LEGACY_20261201.csv.gz');
  writeFileSync(legacy, gzipSync(readFileSync(join(EXAMPLES, 'headerless.csv'))));
  const stray = join(inbox, 'orders-from-nobody.csv');
  writeFileSync(stray, `${HEADER}\nN-1,1,2026-12-01,1.00,JPY\n`);
  return { root, inbox, profiles, eu, legacy, stray };
}

function samples(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const family = parsePrometheusTextFormat(text).find((f) => f.name === name);
  if (family === undefined) throw new Error(`${name} is not in the file`);
  return family.metrics.map((m) => ({ labels: m.labels ?? {}, value: Number(m.value) }));
}
const value = (text: string, name: string, labels: Record<string, string>) =>
  samples(text, name).find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

const UNMATCHED = 'no load profile matches its name (eu-erp: EU_ORDERS_*.csv*, legacy-jp: JP_LEGACY_*.csv*)';

describe.skipIf(!existsSync(CLI))('load --profiles', () => {
  it("two partners' files and a stray one with --failed-dir: each file's profile in the Markdown report, the metrics and runs (exit 2)", async () => {
    const { url } = await migratedPgliteDb();
    const { root, inbox, profiles, eu, legacy, stray } = partners();
    const metrics = join(root, 'run.prom');
    const failed = join(inbox, 'failed');
    const args = ['--profiles', profiles, '--failed-dir', failed, '--archive-dir', join(inbox, 'archive'), '--settle', '0'];
    const result = await runCli(['load', inbox, ...args, '--db', url, '--metrics-file', metrics, '--format', 'markdown']);
    expect(result.code).toBe(2);
    const md = result.stdout;
    expect(md).toMatch(/^# order-loader load: finished, some rows need a look \(exit 2\)$/m);
    expect(md).toMatch(new RegExp(`^- ${eu.replaceAll('/', '\\/')}: read with profile eu-erp \\(sha256 [0-9a-f]{12}\\)$`, 'm'));
    expect(md).toMatch(new RegExp(`^- ${legacy.replaceAll('/', '\\/')}: read with profile legacy-jp \\(sha256 [0-9a-f]{12}\\)$`, 'm'));
    const [movedTo] = readdirSync(failed).filter((n) => !n.endsWith('.error.txt'));
    expect(movedTo).toMatch(/^\d{8}T\d{6}Z-orders-from-nobody\.csv$/);
    expect(md).toContain(`- \`${stray}\`: no load profile matches its name: not read, moved to \`${join(failed, movedTo!)}\``);
    expect(md).toContain('- 1 file(s) matched no load profile: write a profile whose `match:` takes the name, or take the file away.');
    // every row DONE: the exit 2 is the stray file's alone, no row to list
    expect(md).not.toContain('order-loader errors');
    expect(readFileSync(join(failed, `${movedTo!}.error.txt`), 'utf8')).toContain(`reason: ${UNMATCHED}`);
    expect(readdirSync(inbox).sort()).toEqual(['archive', 'failed']);

    const text = readFileSync(metrics, 'utf8');
    // the control totals' family is there only for files whose profile has control: (control-totals-cli.test.ts)
    for (const name of Object.keys(METRIC_FAMILIES))
      if (!CONTROL_ONLY.includes(name as MetricName)) expect(samples(text, name).length, name).toBeGreaterThan(0);
    // the run as a whole is no one profile's: labelled by command only
    expect(samples(text, 'order_loader_last_run_exit_code')).toEqual([{ labels: { command: 'load' }, value: 2 }]);
    expect(value(text, 'order_loader_last_run_files', { outcome: 'loaded' })).toBe(2);
    expect(value(text, 'order_loader_last_run_files', { outcome: 'archived' })).toBe(2);
    expect(value(text, 'order_loader_last_run_files', { outcome: 'unmatched' })).toBe(1);
    expect(value(text, 'order_loader_last_run_files', { outcome: 'failed' })).toBe(1);
    for (const profile of ['eu-erp', 'legacy-jp']) {
      expect(value(text, 'order_loader_last_run_profile_files', { profile, outcome: 'loaded' })).toBe(1);
      expect(value(text, 'order_loader_last_run_profile_files', { profile, outcome: 'archived' })).toBe(1);
      expect(value(text, 'order_loader_last_run_profile_files', { profile, outcome: 'failed' })).toBe(0);
      expect(value(text, 'order_loader_last_run_profile_rows', { profile, status: 'DONE' })).toBe(3);
      expect(value(text, 'order_loader_last_run_profile_rejected_lines', { command: 'load', profile })).toBe(0);
    }

    // the load's history: each file's run with its profile
    const runs = await runCli(['runs', '--db', url]);
    expect(runs.code).toBe(0);
    const [header, ...lines] = runs.stdout.split('\n');
    expect(header).toMatch(/^run +command +status +started +finished +file +profile +message$/);
    expect(lines.find((l) => l.includes(eu))).toMatch(/ eu-erp \([0-9a-f]{12}\)/);
    expect(lines.find((l) => l.includes(legacy))).toMatch(/ legacy-jp \([0-9a-f]{12}\)/);
    const json = JSON.parse((await runCli(['runs', '--db', url, '--json'])).stdout) as Array<{
      fileName: string;
      profile?: { name: string };
    }>;
    expect(json.map((r) => [r.fileName, r.profile?.name])).toEqual([
      [legacy, 'legacy-jp'],
      [eu, 'eu-erp'],
    ]);
  });

  it('without --failed-dir the stray file stays in the inbox with a warning; the report says so (exit 2)', async () => {
    const { url } = await migratedPgliteDb();
    const { inbox, profiles, eu, legacy, stray } = partners();
    const result = await runCli(['load', inbox, '--profiles', profiles, '--settle', '0', '--db', url]);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain(`${eu}: read with profile eu-erp (sha256 `);
    expect(result.stdout).toContain(`${legacy}: read with profile legacy-jp (sha256 `);
    expect(result.stdout).toContain(`${stray}: ${UNMATCHED}: not read, left in the inbox`);
    expect(result.stdout).toContain(
      '1 file(s) matched no load profile: write a profile whose match: takes the name, or take the file away',
    );
    expect(result.stdout).not.toContain('some rows are ERROR');
    const warnings = result.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(warnings).toContain(`${stray}: ${UNMATCHED}: not read, left where it is`);
    expect(existsSync(stray)).toBe(true);
    // the dry run routes as the load does: the stray file said, exit 2
    const dry = await runCli(['load', '--dry-run', inbox, '--profiles', profiles]);
    expect(dry.code).toBe(2);
    expect(dry.stdout).toContain(`${eu}: read with profile eu-erp (sha256 `);
    expect(dry.stdout).toContain(`${stray}: ${UNMATCHED}: not read (a load moves it to --failed-dir, or leaves it in the inbox)`);
  });

  it('a configuration that cannot route is refused in one line before any database is made (exit 1)', async () => {
    const refused = async (args: string[], message: string | RegExp) => {
      const dbDir = join(tempDir(), 'db');
      const result = await runCli([...args, '--db', `pglite:${dbDir}`]);
      expect(result.code).toBe(1);
      const lines = humanLines(result.stderr);
      expect(lines).toHaveLength(1);
      if (typeof message === 'string') expect(lines[0]).toBe(`order-loader: ${message}`);
      else expect(lines[0]).toMatch(message);
      expect(existsSync(dbDir)).toBe(false);
    };
    // two profiles match one file: both and the file named, nothing read or moved
    const twice = partners();
    writeFileSync(
      join(twice.profiles, 'zz-any-csv.yaml'),
      readFileSync(join(EXAMPLES, 'headerless.yaml'), 'utf8')
        .replace("match: 'JP_LEGACY_*.csv*'", "match: '*.csv'")
        .replace('legacy-jp', 'any-csv'),
    );
    await refused(
      ['load', twice.inbox, '--profiles', twice.profiles, '--failed-dir', join(twice.inbox, 'failed'), '--settle', '0'],
      `${twice.eu}: two load profiles match its name, ${join(twice.profiles, 'eu-erp.yaml')} (match: EU_ORDERS_*.csv*) and ${join(twice.profiles, 'zz-any-csv.yaml')} (match: *.csv): make their match: patterns take different files; nothing was read`,
    );
    expect(readdirSync(twice.inbox).sort()).toEqual([
      'EU_ORDERS_20261201.csv',
      'JP_LEGACY_20261201.csv.gz',
      'failed',
      'orders-from-nobody.csv',
    ]);
    await refused(['stage', '--dry-run', twice.inbox, '--profiles', twice.profiles], /two load profiles match its name/);
    // a bad profile anywhere in the folder: its file, the key path and the YAML line
    const bad = partners();
    const spec = parse(readFileSync(join(EXAMPLES, 'eu-erp.yaml'), 'utf8')) as { columns: { amount: Record<string, unknown> } };
    spec.columns.amount.colour = 'red';
    writeFileSync(join(bad.profiles, 'b.json'), JSON.stringify({ ...spec, name: 'b', match: 'B_*' }));
    await refused(
      ['load', bad.inbox, '--profiles', bad.profiles],
      `profile ${join(bad.profiles, 'b.json')}: columns.amount.colour: unknown key (line 1)`,
    );
    // a profile without match: in the folder
    const loose = partners();
    copyFileSync(join(EXAMPLES, 'mainframe-sjis.yaml'), join(loose.profiles, 'mf.yaml'));
    writeFileSync(join(loose.profiles, 'mf.yaml'), readFileSync(join(loose.profiles, 'mf.yaml'), 'utf8').replace(/^match: .*\n/m, ''));
    await refused(
      ['stage', loose.inbox, '--profiles', loose.profiles],
      `profile ${join(loose.profiles, 'mf.yaml')}: match: missing: each profile of --profiles says which file names it reads (such as match: "EU_ORDERS_*.csv*")`,
    );
    const { inbox, profiles } = partners();
    await refused(
      ['load', inbox, '--profiles', profiles, '--profile', join(profiles, 'eu-erp.yaml')],
      "load: --profile and --profiles together are refused: --profile reads every file with one profile, --profiles picks each file's profile by its name",
    );
    await refused(['load', profiles, '--profiles', profiles], /^order-loader: --profiles .* is a folder the files are read from: /);
    await refused(['load', inbox, '--profiles', join(profiles, 'none')], /^order-loader: --profiles .*none: no such folder$/);
  });
});
