/**
 * Control totals end to end on every database target: a file whose trailer agrees is loaded; a
 * truncated copy is staged with every row HELD (exit 1), and neither a rerun nor `recover`
 * releases it — only `accept`, audited; a file without its trailer is refused before staging;
 * a load killed while staging is checked on the whole file when it resumes; with --failed-dir a
 * held or refused file goes there with its note, its control file with it.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { expandInputs } from '../../src/input/inputs.js';
import { loadProfileFile, parseProfileText } from '../../src/input/profile/load-profile.js';
import { strandedMessage } from '../../src/pipeline/load-holds.js';
import { parseCorrections } from '../../src/pipeline/corrections.js';
import { tempDir } from '../support/files.js';
import { forEachTarget, targetTest } from '../support/target-test.js';

const example = (name: string) => fileURLToPath(new URL(`../../examples/profiles/${name}`, import.meta.url));
const profile = () => loadProfileFile(example('bank-trailer.yaml'));

/** A bank file of `n` data records whose trailer states `stated` records and the sum of the first `stated` amounts. */
function bankFile(dir: string, name: string, n: number, stated = n): string {
  const lines = ['H|20261207|ACME BANK'];
  for (let i = 1; i <= n; i++) lines.push(`D|${name}-${i}|20261201|${500 + (i % 7)}|${i}.25`);
  let sum = 0;
  for (let i = 1; i <= stated; i++) sum += i * 100 + 25;
  lines.push(`T|${stated}|${Math.floor(sum / 100)}.${String(sum % 100).padStart(2, '0')}`);
  const path = join(dir, `BANK_${name}.txt`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

forEachTarget('control totals on $kind', () => {
  targetTest('the example with its trailer loads; a truncated copy is HELD until accept, whatever runs meanwhile', async ({ db }) => {
    const { loader } = await db.open();
    const good = await loader.load([example('BANK_20261207.txt')], { profile: profile() });
    expect(good.exitCode).toBe(0);
    expect(good.files[0]).toMatchObject({ control: { status: 'ok', claimed: { count: '3', sum: '5380.50' }, read: { count: 3 } } });
    expect(good.files[0]?.tally).toEqual({ DONE: 3 });

    const dir = tempDir();
    const lines = readFileSync(example('BANK_20261207.txt'), 'utf8').split('\n');
    const truncated = join(dir, 'BANK_20261207.txt');
    // the last data record lost in transfer; the trailer came through
    writeFileSync(truncated, [...lines.slice(0, 3).map((l) => l.replace('BK-', 'TR-')), lines[4], ''].join('\n'));
    const held = await loader.load([truncated], { profile: profile() });
    expect(held.exitCode).toBe(1);
    expect(held.aborted).toBeNull();
    expect(held.files[0]).toMatchObject({
      controlHeld: true,
      control: { status: 'mismatch', claimed: { count: '3', sum: '5380.50' }, read: { count: 2, sum: '4600.50' } },
      tally: { HELD: 2 },
    });
    const loadId = held.files[0]!.loadId;
    const orders = "SELECT count(*)::int AS n FROM orders WHERE source_key LIKE 'TR-%'";
    expect(await db.sql(orders)).toEqual([{ n: 0 }]);

    // the same file again: skipped, still HELD, still exit 1
    const rerun = await loader.load([truncated], { profile: profile() });
    expect(rerun.exitCode).toBe(1);
    expect(rerun.files[0]).toMatchObject({ loadId, controlHeld: true });
    // recover gives up abandoned holds, never a control hold
    const recovered = await loader.recover({ olderThanMs: 0, dryRun: false });
    expect(recovered.count).toBe(0);
    expect(recovered.heldKept).toEqual([expect.objectContaining({ loadId, rows: 2, why: 'control' })]);
    // process, another load: nothing merges it
    await loader.process();
    await loader.load([example('BANK_20261207.txt')], { profile: profile() });
    const statuses = "SELECT process_status AS s, count(*)::int AS n FROM order_stage WHERE source_key LIKE 'TR-%' GROUP BY process_status";
    expect(await db.sql(statuses)).toEqual([{ s: 'HELD', n: 2 }]);

    await expect(loader.accept({ loadId: good.files[0]!.loadId, reason: 'x', dryRun: false })).rejects.toThrow(
      /not held for its control totals/,
    );
    const accepted = await loader.accept({
      loadId,
      reason: 'partner confirmed: the third order was cancelled',
      operator: 'ops',
      dryRun: false,
    });
    expect(accepted.accept).toMatchObject({ loadId, count: 2, hold: { claimed: { count: '3' }, read: { count: 2 } } });
    expect(accepted.process?.process.done).toBe(2);
    expect(await db.sql(orders)).toEqual([{ n: 2 }]);
    expect(
      await db.sql(`SELECT action, old_status, new_status, operator FROM order_stage_audit WHERE action = 'ACCEPT' ORDER BY stage_id`),
    ).toEqual([
      { action: 'ACCEPT', old_status: 'HELD', new_status: 'READY', operator: 'ops' },
      { action: 'ACCEPT', old_status: 'HELD', new_status: 'READY', operator: 'ops' },
    ]);
    await expect(loader.accept({ loadId, reason: 'again', dryRun: false })).rejects.toThrow(/accepted already/);
    // accepted: a rerun of the file is not held again
    const after = await loader.load([truncated], { profile: profile() });
    expect(after.exitCode).toBe(0);
    expect(after.files[0]).toMatchObject({ loadId, controlAccepted: true });
  });

  targetTest('retry leaves the ERROR rows of a control-held load ERROR, says why, and process merges nothing of it', async ({ db }) => {
    const { loader } = await db.open();
    const dir = tempDir();
    const short = join(dir, 'BANK_short.txt');
    // three data records stated, two read; one of them cannot be read (its amount): staged ERROR
    writeFileSync(short, 'H|20261207|ACME BANK\nD|RX-1|20261201|501|10.00\nD|RX-2|20261201|502|abc\nT|3|30.00\n');
    const other = join(dir, 'BANK_other.txt');
    writeFileSync(other, 'D|OK-1|20261201|501|10.00\nD|OK-2|20261201|502|xyz\nT|2|10.00\n');
    const held = await loader.load([short], { profile: profile() });
    expect(held.files[0]).toMatchObject({ controlHeld: true });
    const loadId = held.files[0]!.loadId;
    const good = await loader.load([other], { profile: profile() });
    expect(good.files[0]?.control?.status).toBe('ok');
    const statuses = (prefix: string) =>
      db.sql(`SELECT source_key AS k, process_status AS s FROM order_stage WHERE source_key LIKE '${prefix}-%' ORDER BY source_key`);
    expect(await statuses('RX')).toEqual([
      { k: 'RX-1', s: 'HELD' },
      { k: 'RX-2', s: 'ERROR' },
    ]);
    const fix = parseCorrections(['amount=20.00']);
    const ask = { corrections: fix, reason: 'amount confirmed', operator: 'ops' };

    // --all-errors: the other load's row is retried, the held load's row left ERROR, and said
    const dry = await loader.retry({ ...ask, selector: {}, all: true, dryRun: true });
    expect(dry.retry).toMatchObject({ count: 1, controlHeld: [{ loadId, rows: 1 }] });
    const all = await loader.retry({ ...ask, selector: {}, all: true, dryRun: false });
    expect(all.retry).toMatchObject({ count: 1, controlHeld: [{ loadId, rows: 1 }] });
    expect(all.retry.changes.map((c) => c.sourceKey)).toEqual(['OK-2']);
    // the held load chosen by its number: nothing changed, said why
    const byLoad = await loader.retry({ ...ask, selector: { loadIds: [loadId] }, all: false, dryRun: false });
    expect(byLoad.retry).toMatchObject({ count: 0, controlHeld: [{ loadId, rows: 1 }] });
    expect(byLoad.process).toBeNull();
    // its run's record: what it left and why, in its counts and its 'retried' event
    const [run] = await loader.runs(1);
    expect(run).toMatchObject({ command: 'retry', status: 'COMPLETED', counts: { retried: 0, controlHeld: 1 } });
    expect(run?.events.find((e) => e.event === 'retried')?.detail).toEqual({ rows: 0, controlHeld: [{ loadId, rows: 1 }] });
    // the review page's form of that row: refused, with the load and what lets it through
    const [row] = await db.sql<{ stage_id: string | number; attempt_count: string | number; updated_at: Date | string }>(
      "SELECT stage_id, attempt_count, updated_at FROM order_stage WHERE source_key = 'RX-2'",
    );
    await expect(
      loader.retry({
        ...ask,
        selector: { stageIds: [Number(row!.stage_id)] },
        all: false,
        dryRun: false,
        seen: { attemptCount: Number(row!.attempt_count), updatedAt: new Date(row!.updated_at) },
      }),
    ).rejects.toThrow(new RegExp(`load ${loadId} is held for its control totals.*order-loader accept ${loadId}`));
    await loader.process();
    expect(await statuses('RX')).toEqual([
      { k: 'RX-1', s: 'HELD' },
      { k: 'RX-2', s: 'ERROR' },
    ]);
    expect(await db.sql("SELECT count(*)::int AS n FROM orders WHERE source_key LIKE 'RX-%'")).toEqual([{ n: 0 }]);
    expect(await db.sql("SELECT count(*)::int AS n FROM order_stage_audit WHERE source_key LIKE 'RX-%'")).toEqual([{ n: 0 }]);

    // accepted: its ERROR row is retried as any other
    await loader.accept({ loadId, reason: 'partner confirmed', operator: 'ops', dryRun: false });
    const after = await loader.retry({ ...ask, selector: { loadIds: [loadId] }, all: false, dryRun: false });
    expect(after.retry.count).toBe(1);
    expect(after.retry.controlHeld).toBeUndefined();
    expect(await db.sql("SELECT count(*)::int AS n FROM orders WHERE source_key LIKE 'RX-%'")).toEqual([{ n: 2 }]);
  });

  targetTest(
    'the database leaves the ERROR rows of a control-held load out of what a retry locks, and counts them by load',
    async ({ db }) => {
      const { loader } = await db.open();
      const dir = tempDir();
      const short = join(dir, 'BANK_lock.txt');
      writeFileSync(short, 'D|LK-1|20261201|501|abc\nD|LK-2|20261201|502|xyz\nT|3|30.00\n');
      const held = await loader.load([short], { profile: profile() });
      expect(held.files[0]).toMatchObject({ controlHeld: true });
      const loadId = held.files[0]!.loadId;
      const other = join(dir, 'BANK_free.txt');
      writeFileSync(other, 'D|LF-1|20261201|501|abc\nT|1|0.00\n');
      await loader.load([other], { profile: profile() });
      const window = { afterStageId: 0, limit: 1 };
      const { lockErrorRows, findErrorRows, counts } = await loader.engine.transaction(async (tx) => ({
        // a batch of one: the held load's rows come first in stage_id order and must not use it up
        lockErrorRows: (await tx.lockErrorRows({}, window)).map((r) => r.sourceKey),
        findErrorRows: (await tx.findErrorRows({}, window)).map((r) => r.sourceKey),
        counts: await tx.controlHeldErrors({}),
      }));
      expect({ lockErrorRows, findErrorRows, counts }).toEqual({
        lockErrorRows: ['LF-1'],
        findErrorRows: ['LF-1'],
        counts: [{ loadId, rows: 2 }],
      });
      expect(await loader.engine.transaction((tx) => tx.controlHeldErrors({ sourceKeys: ['LK-2', 'LF-1'] }))).toEqual([
        { loadId, rows: 1 },
      ]);
      await loader.accept({ loadId, reason: 'partner confirmed', operator: 'ops', dryRun: false });
      const after = await loader.engine.transaction(async (tx) => ({
        locked: (await tx.lockErrorRows({}, { afterStageId: 0, limit: 10 })).map((r) => r.sourceKey),
        counts: await tx.controlHeldErrors({}),
      }));
      expect(after).toEqual({ locked: ['LK-1', 'LK-2', 'LF-1'], counts: [] });
    },
  );

  targetTest('a control-held earlier load of a resent file is reported with accept as its way out, not recover', async ({ db }) => {
    const { loader } = await db.open();
    const dir = tempDir();
    const path = join(dir, 'BANK_resend.txt');
    writeFileSync(path, 'D|RS-1|20261201|501|10.00\nD|RS-2|20261201|502|5.00\nT|3|20.00\n');
    const held = await loader.load([path], { profile: profile() });
    expect(held.files[0]).toMatchObject({ controlHeld: true });
    const loadId = held.files[0]!.loadId;
    // the partner resends the day under the same name: another file, RS-2 no longer in it
    writeFileSync(path, 'D|RS-1|20261201|501|10.00\nD|RS-3|20261201|503|7.00\nT|2|17.00\n');
    const resent = await loader.load([path], { profile: profile() });
    expect(resent.files[0]).toMatchObject({ control: { status: 'ok' } });
    expect(resent.files[0]!.loadId).not.toBe(loadId);
    expect(resent.strandedHolds).toEqual([expect.objectContaining({ loadId, rows: 1, control: true })]);
    const said = strandedMessage(resent.strandedHolds![0]!);
    expect(said).toMatch(new RegExp(`load ${loadId} .*held for its control totals.*order-loader accept ${loadId}`));
    expect(said).not.toMatch(/recover --older-than/);
  });

  targetTest(
    'a file without its trailer, or with two, is refused before staging; with --failed-dir it goes there with a note',
    async ({ db }) => {
      const { loader } = await db.open();
      const dir = tempDir();
      const noTrailer = join(dir, 'BANK_cut.txt');
      writeFileSync(noTrailer, 'H|20261207|ACME BANK\nD|C-1|20261201|501|10.00\n');
      const two = join(dir, 'BANK_two.txt');
      writeFileSync(two, 'D|W-1|20261201|501|10.00\nT|1|10.00\nT|1|10.00\n');
      const good = bankFile(dir, 'good', 2);
      const failedDir = join(dir, 'failed');
      const archiveDir = join(dir, 'archive');
      const paths = [noTrailer, two, good];
      const report = await loader.load(paths, { profile: profile(), failedDir, archiveDir, listed: expandInputs(paths).files });
      expect(report.exitCode).toBe(1);
      expect(report.files.map((f) => f.file)).toEqual([good]);
      expect(report.controlRefused?.map((r) => [r.file, r.control.problems[0]])).toEqual([
        [noTrailer, expect.stringMatching(/^no trailer record/)],
        [two, expect.stringMatching(/2 records match the trailer rule/)],
      ]);
      expect(await db.sql("SELECT count(*)::int AS n FROM order_stage WHERE source_key IN ('C-1', 'W-1')")).toEqual([{ n: 0 }]);
      const failed = readdirSync(failedDir).sort();
      expect(failed.filter((f) => f.endsWith('.error.txt'))).toHaveLength(2);
      const note = readFileSync(
        join(
          failedDir,
          failed.find((f) => f.endsWith('BANK_cut.txt.error.txt'))!,
        ),
        'utf8',
      );
      expect(note).toMatch(
        /control totals cannot be checked: trailer states nothing readable; read count 1, sum 10.00 \(no trailer record/,
      );
      expect(readdirSync(archiveDir)).toEqual([`load${report.files[0]!.loadId}-BANK_good.txt`]);
    },
  );

  targetTest('a trailer stating zero data records: a day without orders, exit 0', async ({ db }) => {
    const { loader } = await db.open();
    const dir = tempDir();
    const none = join(dir, 'BANK_none.txt');
    writeFileSync(none, 'H|20261207|ACME BANK\nT|0|0.00\n');
    const report = await loader.load([none], { profile: profile() });
    expect(report.files[0]).toMatchObject({ control: { status: 'ok', read: { count: 0, sum: '0.00' } }, counts: { read: 0 } });
    expect(report.exitCode).toBe(0);
  });

  targetTest('a header record before the column-name line: a match loads, a short file is HELD (exit 1)', async ({ db }) => {
    const { loader } = await db.open();
    const withHeader = loadProfileFile(example('bank-header.yaml'));
    const dir = tempDir();
    const whole = example('BANKH_20261201.csv');
    const lines = readFileSync(whole, 'utf8').split('\n');
    const good = await loader.load([whole], { profile: withHeader });
    expect(good.exitCode).toBe(0);
    expect(good.files[0]).toMatchObject({ control: { status: 'ok', where: 'header (line 1)', read: { count: 3 } }, tally: { DONE: 3 } });
    const short = join(dir, 'short.csv');
    // the last data record lost in transfer; the header record came through
    writeFileSync(short, [...lines.slice(0, 2), ...lines.slice(2, 4).map((l) => l.replace('CB-', 'HS-')), ''].join('\n'));
    const held = await loader.load([short], { profile: withHeader });
    expect(held.exitCode).toBe(1);
    expect(held.files[0]).toMatchObject({ controlHeld: true, control: { status: 'mismatch', read: { count: 2 } }, tally: { HELD: 2 } });
    expect(await db.sql("SELECT count(*)::int AS n FROM orders WHERE source_key LIKE 'HS-%'")).toEqual([{ n: 0 }]);
    expect(await db.sql("SELECT count(*)::int AS n FROM orders WHERE source_key LIKE 'CB-%'")).toEqual([{ n: 3 }]);
  });

  targetTest('a JSON Lines trailer object: the example loads, a copy short of one order is HELD (exit 1)', async ({ db }) => {
    const { loader } = await db.open();
    const shop = loadProfileFile(example('shop-trailer.yaml'));
    const good = await loader.load([example('SHOP_20261201.jsonl')], { profile: shop });
    expect(good.exitCode).toBe(0);
    expect(good.files[0]).toMatchObject({ control: { status: 'ok', where: 'trailer (line 4)', read: { count: 3, sum: '1234.50' } } });
    expect(good.files[0]?.tally).toEqual({ DONE: 3 });
    const lines = readFileSync(example('SHOP_20261201.jsonl'), 'utf8').split('\n');
    const short = join(tempDir(), 'SHOP_20261202.jsonl');
    writeFileSync(
      short,
      lines
        .filter((_, i) => i !== 2)
        .map((l) => l.replace('"JS-', '"JT-'))
        .join('\n'),
    );
    const held = await loader.load([short], { profile: shop });
    expect(held.exitCode).toBe(1);
    expect(held.files[0]).toMatchObject({ controlHeld: true, control: { status: 'mismatch', read: { count: 2, sum: '1234.50' } } });
    expect(held.files[0]?.tally).toEqual({ HELD: 2 });
    expect(await db.sql("SELECT count(*)::int AS n FROM orders WHERE source_key LIKE 'JT-%'")).toEqual([{ n: 0 }]);
  });

  targetTest('a load killed while staging is checked on the whole file when it resumes', async ({ db }) => {
    const { loader } = await db.open();
    const dir = tempDir();
    const whole = bankFile(dir, 'whole', 3000);
    const short = bankFile(dir, 'short', 3000, 3001);
    for (const [file, status] of [
      [whole, 'ok'],
      [short, 'mismatch'],
    ] as const) {
      const stop = new AbortController();
      const killed = await loader.load([file], {
        profile: profile(),
        batchSize: 200,
        signal: stop.signal,
        onStageProgress: (_f, _b, _s, read) => {
          if (read >= 1000) stop.abort();
        },
      });
      expect(killed.aborted).toMatch(/interrupted/);
      const resumed = await loader.load([file], { profile: profile(), batchSize: 200 });
      expect(resumed.files[0]?.resumedAt).not.toBeNull();
      expect(resumed.files[0]?.control).toMatchObject({ status, read: { count: 3000 } });
      const tally = resumed.files[0]?.tally;
      expect(tally).toEqual(status === 'ok' ? { DONE: 3000 } : { HELD: 3000 });
      expect(resumed.exitCode).toBe(status === 'ok' ? 0 : 1);
    }
    // the held load's rows outlive another recover
    expect((await loader.recover({ olderThanMs: 0, dryRun: false })).count).toBe(0);
  });

  targetTest(
    'a SHA-256 beside the data file (sha256sum): a gzip file as sent loads; another file under that digest is HELD, exit 1',
    async ({ db }) => {
      const { loader } = await db.open();
      const dir = tempDir();
      const withSha = parseProfileText(
        readFileSync(example('bank-trailer.yaml'), 'utf8')
          .replace("match: 'BANK_*.txt'", "match: 'BANK_*.txt.gz'")
          .replace(/control:[\s\S]*$/, "control:\n  file: '{name}.sha256'\n  delimiter: ' '\n  sha256: { column: 1 }\n"),
        'sha',
        'bank-sha',
      );
      const sent = gzipSync('D|S-1|20261201|501|10.00\nD|S-2|20261201|502|5.50\n');
      const data = join(dir, 'BANK_s.txt.gz');
      writeFileSync(data, sent);
      writeFileSync(`${data}.sha256`, `${createHash('sha256').update(sent).digest('hex')}  BANK_s.txt.gz\n`);
      const good = await loader.load([data], { profile: withSha });
      expect(good.exitCode).toBe(0);
      expect(good.files[0]?.control).toMatchObject({ status: 'ok', read: { count: 2 } });
      expect(good.files[0]?.tally).toEqual({ DONE: 2 });
      // the same name, one line missing, beside the digest of the file as first sent
      writeFileSync(data, gzipSync('D|S-1|20261201|501|10.00\nD|S-3|20261201|503|7.00\n'));
      const held = await loader.load([data], { profile: withSha });
      expect(held.exitCode).toBe(1);
      expect(held.files[0]).toMatchObject({ controlHeld: true, control: { status: 'mismatch' } });
      expect(held.files[0]?.control?.problems[0]).toMatch(/^it states SHA-256 [0-9a-f]{64}, the file's is [0-9a-f]{64}$/);
      expect(await db.sql("SELECT source_key AS k, process_status AS s FROM order_stage WHERE source_key = 'S-3'")).toEqual([
        { k: 'S-3', s: 'HELD' },
      ]);
    },
  );

  targetTest('a control file beside the data file: read with it, moved with it; one still being written waits', async ({ db }) => {
    const { loader } = await db.open();
    const dir = tempDir();
    const withFile = parseProfileText(
      readFileSync(example('bank-trailer.yaml'), 'utf8').replace(
        /control:[\s\S]*$/,
        "control:\n  file: '{stem}.ctl'\n  delimiter: ','\n  count: { column: 1 }\n  sum: { column: 2 }\n",
      ),
      'ctl',
      'bank-ctl',
    );
    const data = join(dir, 'BANK_a.txt');
    writeFileSync(data, 'D|A-1|20261201|501|10.00\nD|A-2|20261201|502|5.50\n');
    writeFileSync(join(dir, 'BANK_a.ctl'), '2,15.50\n');
    const old = new Date(Date.now() - 120_000);
    utimesSync(join(dir, 'BANK_a.ctl'), old, old);
    const archiveDir = join(dir, 'archive');
    const listed = expandInputs([dir]).files;
    const report = await loader.load(
      listed.map((f) => f.path),
      { profile: withFile, archiveDir, listed, settleMs: 30_000 },
    );
    expect(report.exitCode).toBe(0);
    expect(report.files.map((f) => [f.file, f.control?.status])).toEqual([[data, 'ok']]);
    expect(readdirSync(archiveDir).sort()).toEqual([
      `load${report.files[0]!.loadId}-BANK_a.ctl`,
      `load${report.files[0]!.loadId}-BANK_a.txt`,
    ]);

    // a control file modified within the quiet period: its data file waits for the next run
    const next = join(dir, 'BANK_b.txt');
    writeFileSync(next, 'D|B-1|20261201|501|10.00\n');
    writeFileSync(join(dir, 'BANK_b.ctl'), '1,10.');
    const waiting = await loader.load([next], { profile: withFile, settleMs: 30_000 });
    expect(waiting.files).toEqual([]);
    expect(waiting.notRead.map((n) => n.file)).toEqual([next]);
    expect(waiting.notRead[0]?.reason).toMatch(/control file BANK_b.ctl was modified .* still being written/);
  });
});
