/**
 * Control files in an inbox through the CLI, on PGlite and on server PostgreSQL (when
 * ORDER_LOADER_TEST_PG is set), as docs/nightly.md tells a partner to deliver them: the data file,
 * its control file, then the marker of --ready-suffix that says both are complete — so the control
 * file's age does not matter, and a control file is never itself reported as a file left for the
 * next run. Also the profile's `on_mismatch: warn` (loaded, figures said, exit 0) and a held file
 * going to the failed folder with its control file and a note giving both figures.
 */
import { mkdirSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../support/cli-run.js';
import { cliTargets, profiledCliDb } from '../support/cli-targets.js';
import { NEEDS, unavailable } from '../support/requirements.js';

/** The example bank profile with its figures in a control file `{stem}.ctl` (`count,sum`) instead of its trailer. */
function ctlProfile(extra = ''): string {
  const bank = readFileSync(join(REPO_ROOT, 'examples/profiles/bank-trailer.yaml'), 'utf8');
  return bank.replace(
    /control:[\s\S]*$/,
    `control:\n  file: '{stem}.ctl'\n  delimiter: ','\n  count: { column: 1 }\n  sum: { column: 2 }\n${extra}`,
  );
}

describe.skipIf(unavailable(NEEDS.cli)).each(cliTargets('ctlinbox'))('control files in an inbox through the CLI on $kind', (target) => {
  const profiled = profiledCliDb(target);
  const { sql } = profiled;
  /** A fresh database, the profile, and an inbox folder beside it. */
  const start = async (yaml: string) => {
    const started = await profiled.start(yaml);
    return { ...started, inbox: join(started.dir, 'inbox') };
  };

  it('with --ready-suffix the marker says the control file is complete: a fresh one is read, and no control file is said left', async () => {
    const { inbox, quiet } = await start(ctlProfile());
    mkdirSync(inbox);
    // written just now, in the order nightly.md gives: data, control file, marker
    writeFileSync(join(inbox, 'BANK_r1.txt'), 'D|RS-1|20261201|501|10.00\nD|RS-2|20261201|502|5.50\n');
    writeFileSync(join(inbox, 'BANK_r1.ctl'), '2,15.50\n');
    writeFileSync(join(inbox, 'BANK_r1.txt.done'), '');
    // the next day's control file, its data file not there yet
    writeFileSync(join(inbox, 'BANK_r2.ctl'), '1,9.00\n');
    const archive = join(inbox, 'archive');
    const run = await runCli(['load', inbox, ...quiet, '--ready-suffix', '.done', '--settle', '30s', '--archive-dir', archive]);
    expect(run.stdout).toContain('BANK_r1.txt: control totals agree: control file BANK_r1.ctl states count 2, sum 15.50');
    expect(run.stdout).not.toMatch(/\.ctl: (no marker|modified)/);
    expect(run.code).toBe(0);
    expect(readdirSync(archive).sort()).toEqual(['load1-BANK_r1.ctl', 'load1-BANK_r1.txt', 'load1-BANK_r1.txt.done']);
    expect(await sql("SELECT source_key FROM orders WHERE source_key LIKE 'RS-%' ORDER BY 1")).toEqual([
      { source_key: 'RS-1' },
      { source_key: 'RS-2' },
    ]);
  });

  it('on_mismatch: warn loads the file and says both figures (exit 0); hold sends it to the failed folder with its control file', async () => {
    const warn = await start(ctlProfile('  on_mismatch: warn\n'));
    const data = join(warn.dir, 'BANK_w.txt');
    writeFileSync(data, 'D|WN-1|20261201|501|10.00\nD|WN-2|20261201|502|5.00\n');
    writeFileSync(join(warn.dir, 'BANK_w.ctl'), '3,20.00\n');
    const warned = await runCli(['load', data, ...warn.quiet, '--settle', '0', '--format', 'markdown']);
    expect(warned.stdout).toMatch(
      /BANK_w\.txt`: control totals DIFFER: control file BANK_w\.ctl states count 3, sum 20\.00; read count 2, sum 15\.00/,
    );
    expect(warned.stdout).toContain('loaded all the same (on_mismatch: warn)');
    expect(warned.code).toBe(0);
    expect(await sql("SELECT count(*)::int AS n FROM orders WHERE source_key LIKE 'WN-%'")).toEqual([{ n: 2 }]);

    const hold = await start(ctlProfile());
    mkdirSync(hold.inbox);
    writeFileSync(join(hold.inbox, 'BANK_h.txt'), 'D|HD-1|20261201|501|10.00\n');
    writeFileSync(join(hold.inbox, 'BANK_h.ctl'), '2,20.00\n');
    const failed = join(hold.inbox, 'failed');
    const held = await runCli(['load', hold.inbox, ...hold.quiet, '--settle', '0', '--failed-dir', failed]);
    expect(held.code).toBe(1);
    expect(held.stdout).toMatch(/BANK_h\.txt: control totals DIFFER: .*NOT MERGED: its rows stay HELD in load 1 .*moved to /);
    const moved = readdirSync(failed).sort();
    expect(moved.map((f) => f.replace(/^\d{8}T\d{6}Z-/, ''))).toEqual(['BANK_h.ctl', 'BANK_h.txt', 'BANK_h.txt.error.txt']);
    const note = readFileSync(
      join(
        failed,
        moved.find((f) => f.endsWith('.error.txt'))!,
      ),
      'utf8',
    );
    expect(note).toMatch(/states count 2, sum 20\.00; read count 1, sum 10\.00/);
    expect(await sql("SELECT process_status AS s FROM order_stage WHERE source_key = 'HD-1'")).toEqual([{ s: 'HELD' }]);
  });
  it('a file named on the command line whose control file is still being written is not read, and the run says so with exit 2', async () => {
    const { dir, quiet } = await start(ctlProfile());
    const data = join(dir, 'BANK_n.txt');
    writeFileSync(data, 'D|NM-1|20261201|501|10.00\n');
    writeFileSync(join(dir, 'BANK_n.ctl'), '1,10.00\n');
    const run = await runCli(['load', data, ...quiet, '--settle', '30s']);
    expect(run.stdout + run.stderr).toMatch(
      /BANK_n\.txt: not read: its control file BANK_n\.ctl was modified \d+ s ago .*--settle 0 reads it as it is/,
    );
    expect(run.code).toBe(2);
    expect(await sql("SELECT count(*)::int AS n FROM order_stage WHERE source_key LIKE 'NM-%'")).toEqual([{ n: 0 }]);
    // in an inbox (the data file older than the quiet period) the same file waits quietly for the next run
    const inbox = join(dir, 'inbox');
    mkdirSync(inbox);
    writeFileSync(join(inbox, 'BANK_i.txt'), 'D|NI-1|20261201|501|10.00\n');
    const before = new Date(Date.now() - 120_000);
    utimesSync(join(inbox, 'BANK_i.txt'), before, before);
    writeFileSync(join(inbox, 'BANK_i.ctl'), '1,10.00\n');
    const waiting = await runCli(['load', inbox, ...quiet, '--settle', '30s']);
    expect(waiting.stdout + waiting.stderr).toMatch(/BANK_i\.txt: its control file BANK_i\.ctl was modified .* left for the next run/);
    expect(waiting.code).toBe(0);
  });
});
