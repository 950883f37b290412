// Randomized kill / operator-command / rerun scenarios over an inbox of files that share keys
// (some keys' last line invalid), checked key by key against the files. Usage:
//   node bench/hold-set-fuzz.mjs <pglite|postgres> <seed> [rounds]
// postgres: ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres) gets a database
// fuzz_<seed> of its own, dropped at the end unless KEEP=1.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';

const [engine = 'pglite', seedArg = '1', roundsArg = '6'] = process.argv.slice(2);
const CLI = new URL('../dist/src/cli.js', import.meta.url).pathname;
const HEADER = 'source_key,customer_id,order_date,amount,currency';
let s = Number(seedArg) >>> 0 || 1;
const rnd = () => ((s = (s * 1664525 + 1013904223) >>> 0), s / 2 ** 32);
const pick = (a) => a[Math.floor(rnd() * a.length)];

const base = mkdtempSync(join(tmpdir(), `adv38-fuzz-${engine}-${seedArg}-`));
let url;
let adminPool;
const dbName = `adv38_fuzz_${seedArg}_${process.pid}`;
if (engine === 'pglite') url = `pglite:${join(base, 'db')}`;
else {
  const admin = process.env.ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  adminPool = new pg.Pool({ connectionString: admin, max: 1 });
  await adminPool.query(`CREATE DATABASE ${dbName}`);
  url = admin.replace(/\/[^/]*$/, `/${dbName}`);
}

function cli(args, env = {}) {
  const child = spawn(process.execPath, [CLI, ...args, '--db', url], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const done = new Promise((res) => child.on('close', (code, signal) => res({ code, signal, out, err })));
  return { child, done };
}

async function query(text) {
  if (engine === 'pglite') {
    const db = await PGlite.create({ dataDir: join(base, 'db') });
    try { return (await db.query(text)).rows; } finally { await db.close(); }
  }
  const p = new pg.Pool({ connectionString: url, max: 1 });
  try { return (await p.query(text)).rows; } finally { await p.end(); }
}

// --- the files: KEYS keys over NFILES files; each line valid (its own amount) or invalid
const KEYS = 60 + Math.floor(rnd() * 200);
const NFILES = 3 + Math.floor(rnd() * 3);
const inbox = join(base, 'inbox');
mkdirSync(inbox);
const INVALID = [
  (k) => `${k},1,2026-11-01,,JPY`, // missing amount
  (k) => `${k},1,2026-11-01,abc,JPY`, // unparseable
  (k) => `${k},1,2026-13-45,5.00,JPY`, // bad date
  (k) => `${k},1,2026-11-01,5.00,jpy`, // lower-case currency
  (k) => `${k},1,2026-11-01,99999999999.99,JPY`, // overflows orders.amount
];
const baseline = new Map();
const baseLines = [];
for (let k = 0; k < KEYS; k++) if (rnd() < 0.5) {
  const v = `${(k + 1)}.11`;
  baseLines.push(`K${k},1,2026-10-01,${v},JPY`);
  baseline.set(`K${k}`, v);
}
baseLines.push('Z1,1,2026-10-01,,JPY');
writeFileSync(join(base, 'base.csv'), `${HEADER}\n${baseLines.join('\n')}\n`);
const expected = new Map(baseline);
const last = new Map();
for (let f = 0; f < NFILES; f++) {
  const lines = [];
  const n = 20 + Math.floor(rnd() * 400);
  for (let i = 0; i < n; i++) {
    const k = `K${Math.floor(rnd() * KEYS)}`;
    if (rnd() < 0.25) { lines.push(pick(INVALID)(k)); last.set(k, null); }
    else { const v = `${f + 1}${String(i).padStart(4, '0')}.${String(1 + Math.floor(rnd() * 98)).padStart(2, '0')}`; lines.push(`${k},1,2026-11-01,${v},JPY`); last.set(k, v); }
  }
  writeFileSync(join(inbox, `f${f}.csv`), `${HEADER}\n${lines.join('\n')}\n`);
}
for (const [k, v] of last) if (v !== null) expected.set(k, v);
writeFileSync(join(base, 'other.csv'), `${HEADER}\nO1,3,2026-11-04,7.00,JPY\n`);
const files = readdirSync(inbox).sort();

const log = [];
const say = (m) => { log.push(m); console.log(`[${engine} ${seedArg}] ${m}`); };
say(`keys ${KEYS}, files ${files.join(' ')}, base ${baseline.size}`);
let r = await cli(['load', join(base, 'base.csv'), '--settle', '0']).done;
say(`baseline exit ${r.code}`);

const BETWEEN = [
  () => ['process'],
  () => ['retry', '--source-key', 'Z1', '--set', 'amount=3', '--reason', 'fuzz'],
  () => ['recover', '--older-than', '1h'],
  () => ['recover', '--dry-run'],
  () => ['load', join(base, 'other.csv'), '--settle', '0'],
  () => ['load', ...files.slice(0, 1 + Math.floor(rnd() * (files.length - 1))).map((f) => join(inbox, f)), '--settle', '0'],
  () => ['load', join(inbox, pick(files)), '--settle', '0'],
].filter((_, i) => !(process.env.SKIP_OPS ?? '').split(',').includes(String(i)));
const rounds = Number(roundsArg);
for (let i = 0; i < rounds; i++) {
  const batch = String(pick([1, 2, 7, 1000]));
  const extra = engine === 'postgres' ? pick([[], ['--workers', '4'], ['--no-overlap']]) : [];
  const run = cli(['load', inbox, '--settle', '0', '--batch-size', batch, '--chunk-size', String(pick([1, 3, 50, 2000])), ...extra]);
  const wait = Math.floor(rnd() * (batch === '1' ? 4000 : 2500));
  await new Promise((res) => setTimeout(res, wait));
  let how = 'kill -9';
  if (engine === 'postgres' && rnd() < 0.4) {
    how = 'terminate backends';
    await adminPool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${dbName}' AND pid <> pg_backend_pid()`);
    setTimeout(() => run.child.kill('SIGKILL'), 3000);
  } else run.child.kill('SIGKILL');
  const end = await run.done;
  say(`round ${i}: batch ${batch} ${extra.join(' ')} ${how} after ${wait} ms -> ${end.code ?? end.signal}`);
  if (rnd() < 0.8) {
    const args = pick(BETWEEN)();
    const op = await cli(args).done;
    say(`  between: ${args.map((a) => a.replace(base, '')).join(' ')} -> ${op.code} ${op.err.split('\n').filter((l) => l && !l.startsWith('{')).slice(-2).join(' | ')}`);
    const bad = await check('after between', false);
    if (bad) break;
  }
}
r = await cli(['load', inbox, '--settle', '0', '--batch-size', String(pick([1, 2, 7, 1000]))]).done;
say(`clean rerun exit ${r.code}`);
r = await cli(['process']).done;
say(`process exit ${r.code}`);
const bad = await check('final', true);
if (engine === 'postgres' && process.env.KEEP !== '1' && !bad) await adminPool.query(`DROP DATABASE ${dbName} WITH (FORCE)`);
await adminPool?.end();
console.log(bad ? `FAIL ${engine} seed ${seedArg} (folder ${base}${engine === 'postgres' ? ', db ' + dbName : ''})` : `OK ${engine} seed ${seedArg}`);
process.exit(bad ? 1 : 0);

// Between commands: no key may hold a value that is neither its expected final value, nor its baseline,
// nor the value of a key's last line... in between, a merged earlier line of a key repeated later is wrong
// only when it is a line the set overrides: checked strictly at the end; in between, orders may lag but
// never hold a value that is not the key's baseline or its final expected value.
async function check(when, final) {
  const rows = await query("SELECT source_key, amount::text AS amount FROM orders WHERE source_key LIKE 'K%'");
  const got = new Map(rows.map((x) => [x.source_key, x.amount]));
  const problems = [];
  for (const k of new Set([...got.keys(), ...expected.keys()])) {
    const g = got.get(k) ?? null;
    const e = expected.get(k) ?? null;
    const b = baseline.get(k) ?? null;
    if (final ? g !== e : g !== e && g !== b) problems.push(`${k}: orders ${g}, expected ${e} (baseline ${b})`);
  }
  if (final) {
    const left = await query("SELECT process_status, count(*)::int AS n FROM order_stage WHERE process_status IN ('READY','HELD','PROCESSING') GROUP BY 1");
    if (left.length > 0) problems.push(`left: ${JSON.stringify(left)}`);
  }
  if (problems.length > 0) say(`${when}: ${problems.length} problem(s): ${problems.slice(0, 8).join('; ')}`);
  return problems.length > 0;
}
