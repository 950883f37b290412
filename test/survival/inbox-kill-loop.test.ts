/**
 * A randomized kill loop over a multi-file inbox: several files sharing keys (repeated within a
 * file and across files, the last line of a key valid or refused: missing amount, overflow, bad
 * date, field count …) are loaded with `load <inbox> --archive-dir … --failed-dir …` by the CLI
 * as a child process, which is SIGKILLed at random instants in every phase — while it starts,
 * stages, processes, and moves the files (held before the moves by
 * ORDER_LOADER_TEST_HOLD_BEFORE_MOVE_MS) — and rerun until the inbox is empty and a run ends
 * normally. Then a second round of files, sharing keys with the first, goes through the same.
 * The database has rules of the site's own (test/support/site-rules.ts): a CHECK on order_stage
 * refuses some lines while they are staged (each drops alone, its key keeping its previous line),
 * a trigger on orders refuses some rows in the MERGE.
 * After some kills, chosen at random, an operator command runs before the rerun (OPERATOR_COMMANDS).
 *
 * After each round the database must hold exactly what the files say (test/support/expected-state.ts:
 * per key the last line in load order that reached the stage, its order if it was valid, else the
 * earlier round's; every rejected line in the error log with its file, line and code, every
 * processing failure once), every line of every file accounted for, every file in exactly one
 * place (after every kill too), and no run left RUNNING. Each kill's phase is read from the log
 * lines the run wrote before it died; the loop asserts that staging, processing and the moves
 * were each hit.
 *
 * PGlite always; server PostgreSQL too when ORDER_LOADER_TEST_PG is set. The seed is random
 * (printed, and in every failure message); ORDER_LOADER_SURVIVAL_SEED replays a plan (the
 * instants themselves depend on the machine). ORDER_LOADER_SURVIVAL_FULL=1: bigger files, more kills.
 * Run it alone:
 *   npm run build && npx vitest run --project survival test/survival/inbox-kill-loop.test.ts
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { expectedState, type InputFile } from '../support/expected-state.js';
import { compareWithFiles, unaccountedFileLines } from '../support/file-invariants.js';
import type { Sql } from '../support/invariants.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { sharedKeyFiles } from '../support/shared-key-files.js';
import { SITE_RULES, SITE_RULES_SQL } from '../support/site-rules.js';
import { FULL, PG_ADMIN_URL, assertBuilt, freshServerDb, prng, runCli, sleep, startCli, survivalPath, type CliRun } from './harness.js';

const SIZE = FULL
  ? { firstRound: 5, secondRound: 3, lines: 20_000, keys: 40_000, killsPerRound: 12 }
  : { firstRound: 3, secondRound: 2, lines: 1_500, keys: 2_500, killsPerRound: 5 };

/**
 * The load command of every run of the loop, in one place. `--settle 0`: the files are complete
 * before the first run (written a moment ago, they would be left for the next run otherwise).
 */
function loadArgs(folders: { inbox: string; archive: string; failed: string }, url: string): string[] {
  return [
    'load',
    folders.inbox,
    '--db',
    url,
    '--archive-dir',
    folders.archive,
    '--failed-dir',
    folders.failed,
    '--settle',
    '0',
    '--batch-size',
    '100',
    '--chunk-size',
    '100',
    // "chunk committed" is a debug line: the processing phase is aimed at and recognised by it
    '--log-level',
    'debug',
  ];
}

/**
 * What an operator may run between a kill and the rerun: none of it may let an earlier line of a
 * key reach orders before the key's last line in the killed run's files is staged (the rows it
 * holds stay HELD). `recover` keeps holds younger than --older-than (15m); the retry matches no
 * row (a retry of rows that fail again adds error-log rows and attempts the file oracle does not
 * model; test/survival/holds-between-runs.test.ts has one that changes and processes a row).
 */
const OPERATOR_COMMANDS = [
  ['process'],
  ['retry', '--source-key', 'NO-SUCH-KEY', '--reason', 'kill loop'],
  ['recover'],
  ['recover', '--dry-run'],
];

/** How long the moves are held, so that a kill can be aimed at them. */
const HOLD_BEFORE_MOVE_MS = 300;

const STAGING = /"msg":"staging"|resuming load/;
const PROCESSING = /"msg":"chunk committed"/;
const MOVES = /holding before the moves/;

/**
 * Wait for the `nth` line matching `target`, or for the first line of a later phase (the run got
 * there without `nth` such lines): true when the run is to be killed now, false when it ended.
 */
async function aim(run: CliRun, target: RegExp, nth: number, later: RegExp[]): Promise<boolean> {
  const any = new RegExp([target, ...later].map((p) => p.source).join('|'));
  for (let seen = 0; seen < nth;) {
    const line = await run.waitForLine(any);
    if (line === null) return false;
    if (!target.test(line)) return true;
    seen++;
  }
  return true;
}

type Phase = 'start' | 'staging' | 'processing' | 'moves';
type Mode = 'early' | 'staging' | 'processing' | 'moves';

/**
 * The phases a run was in when it died: the last phase its log lines show (none yet: start). On a
 * server database processing runs beside staging (overlap): once a chunk has committed, a run
 * still staging is processing too, and a run that died with a file begun ("staging") and not
 * finished ("staged") was staging as well, whatever line came last. PGlite runs the phases in
 * sequence: no staging line follows its first chunk.
 */
function phasesOf(stderr: string): Phase[] {
  let phase: Phase = 'start';
  let filesOpen = 0;
  let chunkSeen = false;
  for (const line of stderr.split('\n')) {
    if (/"msg":"staging"/.test(line)) filesOpen++;
    else if (/"msg":"staged"/.test(line)) filesOpen = Math.max(0, filesOpen - 1);
    if (/"msg":"(staging|staged)"|resuming load|staging skipped/.test(line)) phase = 'staging';
    else if (/"msg":"chunk committed"/.test(line)) {
      phase = 'processing';
      chunkSeen = true;
    } else if (/holding before the moves|: archived as |: moved to /.test(line)) phase = 'moves';
  }
  const phases = new Set<Phase>([phase]);
  if (phase === 'processing' && filesOpen > 0) phases.add('staging');
  if (phase === 'staging' && chunkSeen) phases.add('processing');
  return [...phases];
}

/**
 * The kills of one round: staging, then processing, then the moves (once a round's files are
 * staged, a rerun does not stage again), with kills at random early instants mixed in anywhere
 * (a rerun killed before it wrote anything about a file must not change what the file is taken for).
 */
function killPlan(random: () => number, kills: number): Mode[] {
  const early = Math.max(1, Math.round(kills / 5));
  const rest = kills - early - 1;
  const staging = Math.ceil(rest / 2);
  const plan: Mode[] = [...Array<Mode>(staging).fill('staging'), ...Array<Mode>(rest - staging).fill('processing'), 'moves'];
  for (let i = 0; i < early; i++) plan.splice(Math.floor(random() * (plan.length + 1)), 0, 'early');
  return plan;
}

interface Target {
  kind: string;
  create(): Promise<{ url: string; withSql<T>(fn: (sql: Sql) => Promise<T>): Promise<T>; dispose(): Promise<void> }>;
}

const targets: Target[] = [
  {
    kind: 'pglite',
    async create() {
      const { url, dataDir } = await migratedPgliteDb();
      return {
        url,
        // only between runs: the folder is one process's at a time
        async withSql(fn) {
          const db = await PGlite.create({ dataDir });
          try {
            return await fn(async (text, params) => (await db.query(text, params)).rows as never[]);
          } finally {
            await db.close();
          }
        },
        dispose: () => Promise.resolve(),
      };
    },
  },
  ...(PG_ADMIN_URL === null
    ? []
    : [
        {
          kind: 'postgres',
          async create() {
            const db = await freshServerDb();
            return { url: db.url, withSql: (fn) => fn(db.sql), dispose: () => db.dispose() };
          },
        } satisfies Target,
      ]),
];

/** Each run of the database, one line: its file, status, and events (a failure's context). */
async function runHistory(sql: Sql): Promise<string[]> {
  const runs = await sql<{ run_id: number; file: string | null; status: string; events: string | null }>(
    `SELECT r.run_id, r.file_name AS file, r.status,
            (SELECT string_agg(e.event || CASE WHEN e.event IN ('invoked', 'resumed', 'staged_checkpoint') THEN coalesce(' ' || left(e.detail, 80), '') ELSE '' END, ', ' ORDER BY e.seq)
               FROM load_run_event e WHERE e.run_id = r.run_id) AS events
       FROM load_run r ORDER BY r.run_id`,
  );
  return runs.map((r) => `${r.run_id} ${r.file?.split('/').pop() ?? '-'} ${r.status}: ${r.events ?? '(no events)'}`);
}

/** Where each file of a round is: every one must be in exactly one place. */
function placesOf(names: string[], folders: { inbox: string; archive: string; failed: string }): Map<string, string[]> {
  const list = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => !n.startsWith('.')) : []);
  const inbox = list(folders.inbox);
  const archive = list(folders.archive);
  const failed = list(folders.failed).filter((n) => !n.endsWith('.error.txt'));
  const places = new Map<string, string[]>(names.map((n) => [n, []]));
  for (const n of inbox) places.get(n)?.push('inbox');
  for (const n of archive) places.get(n.replace(/^load\d+-/, ''))?.push(`archive:${n}`);
  for (const n of failed) places.get(n.replace(/^\d{8}T\d{6}Z-/, ''))?.push(`failed:${n}`);
  const strays = [...inbox, ...archive, ...failed].filter(
    (n) => !names.includes(n) && !names.includes(n.replace(/^load\d+-/, '')) && !names.includes(n.replace(/^\d{8}T\d{6}Z-/, '')),
  );
  if (strays.length > 0) places.set('(unknown)', strays);
  return places;
}

describe('survival: randomized kill -9 loop over a multi-file inbox', () => {
  for (const target of targets) {
    it(
      `${target.kind}: files sharing keys, killed at random in every phase and rerun until the inbox is empty, end as the files say`,
      async () => {
        assertBuilt();
        const seed = Number(process.env.ORDER_LOADER_SURVIVAL_SEED ?? Math.floor(Math.random() * 2 ** 31));
        const random = prng(seed);
        const db = await target.create();
        // the site's rules go on the migrated tables (init: safe to run again)
        expect((await runCli(['init', '--db', db.url])).code).toBe(0);
        await db.withSql(async (sql) => {
          for (const statement of SITE_RULES_SQL) await sql(statement);
        });
        const kills: Array<{ round: number; mode: Mode; phases: Phase[] }> = [];
        const operatorRuns: string[] = [];
        const why = (what: string) => `${what} (${target.kind}, seed ${seed}; kills so far ${JSON.stringify(kills)})`;
        try {
          const base = survivalPath('inbox-kill-loop');
          const folders = { inbox: join(base, 'inbox'), archive: join(base, 'archive'), failed: join(base, 'failed') };
          mkdirSync(folders.inbox, { recursive: true });
          const first = sharedKeyFiles({
            names: Array.from({ length: SIZE.firstRound }, (_, i) => `r1-${String.fromCharCode(97 + i)}.csv`),
            linesPerFile: SIZE.lines,
            keys: SIZE.keys,
            seed,
            echoRate: 0.05, // lines repeated verbatim later, across the batches the kills cut
          });
          // a file that is not an order file: set aside to --failed-dir, whatever the kills
          const notOrders: InputFile = { name: 'r1-bb-not-orders.csv', text: 'order,amount\n1,2\n' };
          const second = sharedKeyFiles({
            names: Array.from({ length: SIZE.secondRound }, (_, i) => `r2-${String.fromCharCode(97 + i)}.csv`),
            linesPerFile: SIZE.lines,
            keys: SIZE.keys,
            seed: seed + 1,
            firstCustomer: first.nextCustomer,
            echoRate: 0.05,
          });
          const rounds = [[...first.files, notOrders], second.files];
          const args = loadArgs(folders, db.url);

          for (const [r, files] of rounds.entries()) {
            const round = r + 1;
            for (const f of files) writeFileSync(join(folders.inbox, f.name), f.text);
            const names = files.map((f) => f.name);
            // this round's files and the earlier rounds' (in the archive and --failed-dir by now)
            const allNames = rounds.slice(0, round).flatMap((fs) => fs.map((f) => f.name));
            const plan = killPlan(random, SIZE.killsPerRound);
            let ended: { code: number | null; stderr: string; inboxHadFiles: boolean } | null = null;
            for (let attempt = 0; ended === null && attempt < plan.length + 3; attempt++) {
              const mode = plan[attempt];
              const inboxHadFiles = readdirSync(folders.inbox).some((n) => !n.startsWith('.'));
              // every run is held before its moves: a kill aimed at an earlier phase that the
              // run is already past lands there rather than let the run finish
              const run = startCli(args, { env: { ORDER_LOADER_TEST_HOLD_BEFORE_MOVE_MS: String(HOLD_BEFORE_MOVE_MS) } });
              let armed = false;
              if (mode === 'early') {
                await sleep(random() * 700);
                armed = true;
              } else if (mode === 'staging') {
                // a few batches into the n-th file the run stages (or later, if it stages fewer)
                armed = await aim(run, STAGING, 1 + Math.floor(random() * files.length), [PROCESSING, MOVES]);
                if (armed) await sleep(random() * 40);
              } else if (mode === 'processing') {
                armed = await aim(run, PROCESSING, 1 + Math.floor(random() * 4), [MOVES]);
                if (armed) await sleep(random() * 30);
              } else if (mode === 'moves') {
                armed = await run.waitFor(MOVES);
                // until a kill has landed in the moves, aim well inside the hold: a sleep past it
                // lets the run finish and end the round without one (seed 68460865 did so in both
                // rounds); after that, up to 100 ms past the hold, into the moves themselves
                const movesHit = kills.some((k) => k.phases.includes('moves'));
                const reach = movesHit ? HOLD_BEFORE_MOVE_MS + 100 : HOLD_BEFORE_MOVE_MS / 2;
                if (armed) await sleep(random() * reach);
              }
              if (armed && run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
              const result = await run.done;
              if (result.signal === 'SIGKILL' && mode !== undefined) {
                kills.push({ round, mode, phases: phasesOf(result.stderr) });
                // after the first kill and then some others at random, an operator command before the
                // rerun (at random only, no kill of a plan had one about once in a thousand: seed 118712321)
                const command =
                  operatorRuns.length === 0 || random() < 0.5
                    ? OPERATOR_COMMANDS[Math.floor(random() * OPERATOR_COMMANDS.length)]
                    : undefined;
                if (command !== undefined) {
                  const op = await runCli([...command, '--db', db.url]);
                  expect([op.signal, op.code === 1], why(`${command.join(' ')} after a kill: ${op.stderr.slice(-2000)}`)).toEqual([
                    null,
                    false,
                  ]);
                  operatorRuns.push(command.join(' '));
                }
              } else {
                expect(result.signal, why(`run ${attempt + 1} of round ${round} died of ${String(result.signal)}`)).toBeNull();
                ended = { ...result, inboxHadFiles };
              }
              // after every kill as after the end: each file in exactly one place
              const places = placesOf(allNames, folders);
              expect(
                [...places].filter(([, p]) => p.length !== 1),
                why(`files not in exactly one place after run ${attempt + 1} of round ${round}`),
              ).toEqual([]);
            }
            expect(ended, why(`round ${round}: no run ended normally`)).not.toBeNull();
            // rows were rejected in every round: exit 2 (exit 0 when a kill came after the last
            // move and the run that ended found the inbox empty), and the inbox is empty
            expect(ended?.code, why(`round ${round}: last run's exit code\n${ended?.stderr.slice(-3000) ?? ''}`)).toBe(
              ended?.inboxHadFiles === false ? 0 : 2,
            );
            expect(
              readdirSync(folders.inbox).filter((n) => !n.startsWith('.')),
              why(`round ${round}: inbox not empty`),
            ).toEqual([]);

            const expected = expectedState(rounds.slice(0, round), SITE_RULES);
            const loaded = rounds
              .slice(0, round)
              .flat()
              .filter((f) => expected.loadedFiles.includes(f.name));
            await db.withSql(async (sql) => {
              const violations = await compareWithFiles(sql, expected);
              const history = violations.length === 0 ? '' : `\nruns:\n${(await runHistory(sql)).join('\n')}`;
              expect(violations, why(`round ${round}: the database against the files${history}`)).toEqual([]);
              expect(await unaccountedFileLines(sql, loaded, SITE_RULES), why(`round ${round}: lines not accounted for`)).toEqual([]);
              const running = await sql<{ run_id: number }>("SELECT run_id FROM load_run WHERE status = 'RUNNING'");
              expect(running, why(`round ${round}: runs left RUNNING`)).toEqual([]);
              // each loaded file archived under its own load's id
              const loads = await sql<{ run_id: number | string; file_name: string }>(
                "SELECT run_id, file_name FROM load_run WHERE command = 'load' AND file_name IS NOT NULL",
              );
              const archived = readdirSync(folders.archive).filter((n) => names.includes(n.replace(/^load\d+-/, '')));
              for (const n of archived) {
                const loadId = Number(/^load(\d+)-/.exec(n)?.[1]);
                const loadFile = loads
                  .find((l) => Number(l.run_id) === loadId)
                  ?.file_name.split('/')
                  .pop();
                expect(`${n} → ${String(loadFile)}`, why('archived under another load than its own')).toBe(
                  `${n} → ${n.replace(/^load\d+-/, '')}`,
                );
              }
            });
            const refused = placesOf(allNames, folders);
            for (const name of expected.refusedFiles.filter((n) => names.includes(n)))
              expect(refused.get(name)?.[0], why(`${name} not in --failed-dir`)).toMatch(/^failed:/);
            for (const name of expected.loadedFiles.filter((n) => names.includes(n)))
              expect(refused.get(name)?.[0], why(`${name} not archived`)).toMatch(/^archive:/);
          }

          // the files exercised what they are for, and the kills hit every phase
          const { stats, siteRefusals } = expectedState(rounds, SITE_RULES);
          for (const [what, n] of Object.entries({ ...stats, ...siteRefusals })) expect(n, why(`files: ${what}`)).toBeGreaterThan(0);
          const landed = (phase: Phase) => kills.filter((k) => k.phases.includes(phase)).length;
          for (const phase of ['staging', 'processing', 'moves'] as const)
            expect(landed(phase), why(`no kill landed while ${phase}`)).toBeGreaterThan(0);
          expect(operatorRuns.length, why('no operator command ran between a kill and its rerun')).toBeGreaterThan(0);
          console.info(
            `inbox kill loop (${target.kind}, seed ${seed}): ${kills.length} kills, by phase ${JSON.stringify(
              Object.fromEntries((['start', 'staging', 'processing', 'moves'] as const).map((p) => [p, landed(p)])),
            )}; operator commands ${JSON.stringify(operatorRuns)}; files ${JSON.stringify({ ...stats, siteRefusals })}`,
          );
        } finally {
          await db.dispose();
        }
      },
      FULL ? 1_800_000 : 180_000,
    );
  }
});
