/**
 * The CLI as a child process and a query of the fuzzed database, shared by the kill-loop fuzzers
 * (hold-set-fuzz.ts, arrival-fuzz.ts). PGlite: the folder is opened for each query, between
 * commands (one process at a time holds it); a server: a pool of one connection per query.
 */
import { PGlite } from '@electric-sql/pglite';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

// ORDER_LOADER_CLI: another build's dist/src/cli.js (a branch's worktree), run against the same checks
const CLI = process.env.ORDER_LOADER_CLI ?? fileURLToPath(new URL('../src/cli.js', import.meta.url));

export interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

export interface FuzzCommands {
  cli: (args: string[]) => { child: ChildProcess; done: Promise<Ended> };
  query: <R>(text: string) => Promise<R[]>;
}

/** `url`: the --db every command gets; `pgliteDir`: the PGlite folder (null: `url` is a server's). */
export function fuzzCommands(url: string, pgliteDir: string | null): FuzzCommands {
  return {
    cli: (args) => {
      const child = spawn(process.execPath, [CLI, ...args, '--db', url], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const done = new Promise<Ended>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
      return { child, done };
    },
    query: async <R>(text: string): Promise<R[]> => {
      if (pgliteDir !== null) {
        const db = await PGlite.create({ dataDir: pgliteDir });
        try {
          return (await db.query<R>(text)).rows;
        } finally {
          await db.close();
        }
      }
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      pool.on('error', () => undefined);
      try {
        return (await pool.query(text)).rows as R[];
      } finally {
        await pool.end();
      }
    },
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A seeded PRNG (an LCG: the same seed gives the same files, waits and commands) and a pick from it. */
export function seededRandom(seed: string): { rnd: () => number; pick: <T>(items: readonly T[]) => T } {
  let state = (Math.imul(Number(seed) || 1, 2654435761) ^ 0x5bd1e995) >>> 0;
  const rnd = (): number => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0), state / 2 ** 32);
  const pick = <T>(items: readonly T[]): T => {
    const item = items[Math.floor(rnd() * items.length)];
    if (item === undefined) throw new Error('nothing to pick');
    return item;
  };
  return { rnd, pick };
}

/** Invalid lines of a key: no amount, an unparseable amount or date, a lower-case currency, an amount orders.amount cannot hold. */
export const INVALID: Array<(k: string) => string> = [
  (k) => `${k},1,2026-11-01,,JPY`,
  (k) => `${k},1,2026-11-01,abc,JPY`,
  (k) => `${k},1,2026-13-45,5.00,JPY`,
  (k) => `${k},1,2026-11-01,5.00,jpy`,
  (k) => `${k},1,2026-11-01,99999999999.99,JPY`,
];
