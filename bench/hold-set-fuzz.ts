/**
 * Randomized kill / operator command / rerun rounds over an inbox of files that share keys (about a
 * quarter of the lines invalid: no amount, an unparseable amount or date, a lower-case currency, an
 * amount orders.amount cannot hold), checked key by key against the files: after a final clean
 * rerun and `process`, every key of orders holds its last line in the inbox if that line is valid,
 * else its value from a baseline load before (or nothing), and no row is READY, HELD or PROCESSING.
 * Between rounds, orders may lag but never hold a value other than the key's baseline or final one.
 *
 *   npm run build && node dist/bench/hold-set-fuzz.js <pglite|postgres> <seed> [rounds]
 *
 * postgres: ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres) gets a database of its
 * own, dropped at the end when the check passed. Each round starts a load of the inbox (batch size
 * 1, 2, 7 or 1000; on a server --workers 4 or --no-overlap at random), kills it (-9, or on a server
 * terminates the database's backends first) at a random instant, then mostly runs an operator
 * command. OPS (comma-separated) picks the commands; the default is those the promise covers and
 * that held when this was written. part-load, one-file (a part of the killed run's set) and
 * recover-1s broke it then (test/survival/hold-set-subset-resume.test.ts,
 * hold-set-later-file-between.test.ts and recover-then-rerun.test.ts); add them to OPS. A part is
 * run only while a file set of the inbox holds a load: else it is a load of its own, before the
 * rest in load order. recover-1s is the operator's abandonment of the set: a later command's
 * processing may merge the given-up rows. CONCURRENT=1 (server) runs another command beside each
 * round's load. AFTER_STAGING=1 starts each round's wait once its load logged its first file's
 * staging (on PGlite the open alone outlasts most waits: a kill before staging records no set, so
 * no part ever ran there). ARCHIVE=1 gives the inbox's loads --archive-dir. part-stage, one-stage
 * and last-file run `stage` of a part, of one file, and `load` of the set's last file; reversed
 * loads every file of the inbox named in the reverse order, part-archive a part with --archive-dir.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { INVALID, fuzzCommands, seededRandom, sleep } from './fuzz-commands.js';

const [engine = 'pglite', seedArg = '1', roundsArg = '6'] = process.argv.slice(2);
const HEADER = 'source_key,customer_id,order_date,amount,currency';
const { rnd, pick } = seededRandom(seedArg);

const base = mkdtempSync(join(tmpdir(), `hold-set-fuzz-${engine}-${seedArg}-`));
const dbName = `hold_set_fuzz_${seedArg}_${process.pid}`;
const adminUrl = process.env.ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const admin = engine === 'postgres' ? new pg.Pool({ connectionString: adminUrl, max: 1 }) : null;
admin?.on('error', () => undefined);
if (admin !== null) await admin.query(`CREATE DATABASE ${dbName}`);
const url = admin === null ? `pglite:${join(base, 'db')}` : adminUrl.replace(/\/[^/]*$/, `/${dbName}`);

const { cli, query } = fuzzCommands(url, admin === null ? join(base, 'db') : null);

/** The baseline file, the inbox and the expected orders (key → amount). */
function writeFiles(): { inbox: string; files: string[]; baseline: Map<string, string>; expected: Map<string, string> } {
  const keys = 60 + Math.floor(rnd() * 200);
  const baseline = new Map<string, string>();
  const baseLines: string[] = [];
  for (let k = 0; k < keys; k++) {
    if (rnd() < 0.5) continue;
    baseLines.push(`K${k},1,2026-10-01,${k + 1}.11,JPY`);
    baseline.set(`K${k}`, `${k + 1}.11`);
  }
  baseLines.push('Z1,1,2026-10-01,,JPY');
  writeFileSync(join(base, 'base.csv'), `${HEADER}\n${baseLines.join('\n')}\n`);
  writeFileSync(join(base, 'other.csv'), `${HEADER}\nO1,3,2026-11-04,7.00,JPY\n`);
  const inbox = join(base, 'inbox');
  mkdirSync(inbox);
  const last = new Map<string, string | null>();
  const nFiles = 3 + Math.floor(rnd() * 3);
  for (let f = 0; f < nFiles; f++) {
    const lines: string[] = [];
    const n = 20 + Math.floor(rnd() * 400);
    for (let i = 0; i < n; i++) {
      const k = `K${Math.floor(rnd() * keys)}`;
      if (rnd() < 0.25) {
        lines.push(pick(INVALID)(k));
        last.set(k, null);
      } else {
        const v = `${f + 1}${String(i).padStart(4, '0')}.${String(1 + Math.floor(rnd() * 98)).padStart(2, '0')}`;
        lines.push(`${k},1,2026-11-01,${v},JPY`);
        last.set(k, v);
      }
    }
    writeFileSync(join(inbox, `f${f}.csv`), `${HEADER}\n${lines.join('\n')}\n`);
  }
  const expected = new Map(baseline);
  for (const [k, v] of last) if (v !== null) expected.set(k, v);
  return { inbox, files: readdirSync(inbox).sort(), baseline, expected };
}

const { inbox, files, baseline, expected } = writeFiles();
const say = (m: string) => console.log(`[${engine} ${seedArg}] ${m}`);

/** Problems of orders now: final, every key as expected and nothing left to process; between, baseline or final values only. */
async function check(when: string, final: boolean): Promise<boolean> {
  const rows = await query<{ source_key: string; amount: string }>(
    "SELECT source_key, amount::text AS amount FROM orders WHERE source_key LIKE 'K%'",
  );
  const got = new Map(rows.map((x) => [x.source_key, x.amount]));
  const problems: string[] = [];
  for (const k of new Set([...got.keys(), ...expected.keys()])) {
    const g = got.get(k) ?? null;
    const e = expected.get(k) ?? null;
    const b = baseline.get(k) ?? null;
    if (final ? g !== e : g !== e && g !== b) problems.push(`${k}: orders ${String(g)}, expected ${String(e)} (baseline ${String(b)})`);
  }
  if (final) {
    const left = await query(
      "SELECT process_status, count(*)::int AS n FROM order_stage WHERE process_status IN ('READY','HELD','PROCESSING') GROUP BY 1",
    );
    if (left.length > 0) problems.push(`left: ${JSON.stringify(left)}`);
  }
  if (problems.length > 0) say(`${when}: ${problems.length} problem(s): ${problems.slice(0, 8).join('; ')}`);
  return problems.length > 0;
}

// ARCHIVE=1: every load of the inbox moves its files to an archive folder (a rerun then reads what is left)
const archive = process.env.ARCHIVE === '1' ? ['--archive-dir', join(base, 'archive')] : [];
const OPS: Record<string, () => string[]> = {
  process: () => ['process'],
  retry: () => ['retry', '--source-key', 'Z1', '--set', 'amount=3', '--reason', 'fuzz'],
  'recover-1h': () => ['recover', '--older-than', '1h'],
  'recover-dry-run': () => ['recover', '--dry-run'],
  'load-other': () => ['load', join(base, 'other.csv'), '--settle', '0'],
  'part-load': () => ['load', ...files.slice(0, 1 + Math.floor(rnd() * (files.length - 1))).map((f) => join(inbox, f)), '--settle', '0'],
  'one-file': () => ['load', join(inbox, pick(files)), '--settle', '0'],
  'recover-1s': () => ['recover', '--older-than', '1s'],
  'part-stage': () => ['stage', ...files.slice(0, 1 + Math.floor(rnd() * (files.length - 1))).map((f) => join(inbox, f))],
  'one-stage': () => ['stage', join(inbox, pick(files))],
  'last-file': () => ['load', join(inbox, files[files.length - 1] ?? ''), '--settle', '0'],
  // the whole set named in the reverse order: staged in the set's order all the same (src/pipeline/set-order.ts)
  reversed: () => ['load', ...[...files].reverse().map((f) => join(inbox, f)), '--settle', '0', ...archive],
  // a part with --archive-dir: the files a set still holds stay in the inbox for the set's rerun
  'part-archive': () => [
    'load',
    ...files.slice(0, 1 + Math.floor(rnd() * (files.length - 1))).map((f) => join(inbox, f)),
    '--settle',
    '0',
    '--archive-dir',
    join(base, 'archive'),
  ],
};
const ops = (process.env.OPS ?? 'process,retry,recover-1h,recover-dry-run,load-other').split(',').map((name) => {
  const op = OPS[name];
  if (op === undefined) throw new Error(`OPS: unknown ${name} (${Object.keys(OPS).join(', ')})`);
  return op;
});

say(`${files.length} files, ${expected.size} keys expected in orders`);
say(`baseline exit ${String((await cli(['load', join(base, 'base.csv'), '--settle', '0']).done).code)}`);
let bad = false;
for (let i = 0; i < Number(roundsArg) && !bad; i++) {
  const batch = String(pick([1, 2, 7, 1000]));
  const extra = admin === null ? [] : pick([[], ['--workers', '4'], ['--no-overlap']]);
  const run = cli([
    'load',
    inbox,
    '--settle',
    '0',
    '--batch-size',
    batch,
    '--chunk-size',
    String(pick([1, 3, 50, 2000])),
    ...extra,
    ...archive,
  ]);
  // AFTER_STAGING=1: the wait starts once the run logged its first file's staging (PGlite opens slowly: kills land before it)
  if (process.env.AFTER_STAGING === '1') {
    let log = '';
    run.child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    for (let t = 0; t < 600 && !log.includes('"msg":"staging"') && run.child.exitCode === null; t++) await sleep(50);
  }
  const beside =
    admin !== null && process.env.CONCURRENT === '1'
      ? cli(
          pick([
            ['process', '--workers', '3'],
            ['load', join(base, 'other.csv'), '--settle', '0'],
            ['load', inbox, '--settle', '0', '--batch-size', '7'],
          ]),
        )
      : null;
  const wait = Math.floor(rnd() * (batch === '1' ? 4000 : 2500));
  await sleep(wait);
  let how = 'kill -9';
  if (admin !== null && rnd() < 0.4) {
    how = 'backends terminated';
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);
    setTimeout(() => run.child.kill('SIGKILL'), 3000);
  } else run.child.kill('SIGKILL');
  const end = await run.done;
  if (beside !== null) say(`  beside: exit ${String((await beside.done).code)}`);
  say(`round ${i}: batch ${batch} ${extra.join(' ')} ${how} after ${wait} ms -> ${String(end.code ?? end.signal)}`);
  if (rnd() < 0.8) {
    await sleep(1200);
    const args = pick(ops)();
    // a part of the inbox loaded when no set of it is recorded (the killed run staged nothing, or
    // `recover` gave its set up) is a load of its own: its lines come before the rest in load
    // order, which this check (the inbox's order) does not model
    const part = args[0] === 'load' && args[1]?.startsWith(inbox) === true;
    const sets = part ? await query<{ n: number }>('SELECT count(*)::int AS n FROM load_hold_set WHERE load_id IS NOT NULL') : [];
    if (part && (sets[0]?.n ?? 0) === 0) {
      say(`  between: ${args.map((a) => a.replace(base, '')).join(' ')} not run: no file set of the inbox holds a load`);
      continue;
    }
    const op = await cli(args).done;
    say(`  between: ${args.map((a) => a.replace(base, '')).join(' ')} -> ${String(op.code)}`);
    bad = await check('after the command between', false);
  }
}
say(
  `clean rerun exit ${String((await cli(['load', inbox, '--settle', '0', '--batch-size', String(pick([1, 2, 7, 1000])), ...archive]).done).code)}`,
);
say(`process exit ${String((await cli(['process']).done).code)}`);
bad = (await check('final', true)) || bad;
if (admin !== null && !bad) await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`);
await admin?.end();
// kept only when a check failed: the folder (its files, a PGlite database) is what to look at
if (!bad) rmSync(base, { recursive: true, force: true });
console.log(
  bad ? `FAIL ${engine} seed ${seedArg} (folder ${base}${admin === null ? '' : `, database ${dbName}`})` : `OK ${engine} seed ${seedArg}`,
);
process.exitCode = bad ? 1 : 0;
