/**
 * A run whose file claim ends while it still stages the file: the claim is a session-level
 * advisory lock on a connection of its own, and that session can end without the run (an
 * operator's pg_terminate_backend, a firewall dropping the connection, a server restart the run's
 * pool rides out). Unchecked, the run went on staging the file unclaimed; a second run of the
 * same files took the claim, resumed the file beside it, staged the rest and released the set;
 * the first run's later lines of a.csv were then merged over the set's later (invalid) lines.
 * Now each staging batch checks the claim in its transaction: the first run stops (exit 1, its
 * run FAILED, saying so) and a rerun merges nothing of a.csv either. The server's
 * idle_session_timeout no longer ends the claim: the claim session turns it off for itself, so
 * the second run waits for the first, which finishes.
 * a.csv: K0..K299 valid; b.csv: 300 other keys; c.csv: K0..K299 with no amount, so no K may
 * reach orders.
 *
 * Server PostgreSQL only (ORDER_LOADER_TEST_PG): on PGlite a folder is one process's for a whole
 * command and that process has one connection, so there is no claim session to lose.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  PG_ADMIN_URL,
  PG_SKIP_REASON,
  assertBuilt,
  freshServerDb,
  runCli,
  sleep,
  startCli,
  survivalPath,
  writeOverriddenSet,
  type ServerDb,
} from './harness.js';

const KEYS = 300;

/** How the slow run's claim session may end while the run is held inside a.csv. */
const LOSSES: Array<{
  name: string;
  before?: (db: ServerDb) => Promise<unknown>;
  lose: (db: ServerDb) => Promise<void>;
  /** Whether the slow run's claim ends (else the second run waits for it, as long as --lock-timeout). */
  lost: boolean;
}> = [
  {
    name: 'terminated (pg_terminate_backend)',
    lost: true,
    async lose(db) {
      const ended = await db.sql<{ ended: boolean }>(
        `SELECT pg_terminate_backend(l.pid) AS ended FROM pg_locks l JOIN pg_database d ON d.oid = l.database
          WHERE l.locktype = 'advisory' AND l.classid = x'4f4c4643'::int AND d.datname = current_database()`,
      );
      expect(ended, 'the slow run held a file claim').toEqual([{ ended: true }]);
    },
  },
  {
    // a DBA's setting, no operator action: the claim session is idle while its file stages (it
    // turns the setting off for itself; the run's pooled sessions, ended too, are opened again)
    name: 'idle under the server’s idle_session_timeout',
    lost: false,
    before: (db) => db.sql(`ALTER DATABASE "${db.name}" SET idle_session_timeout = '2s'`),
    lose: () => sleep(3000),
  },
];

describe(`survival: a file claim lost while its run stages${PG_ADMIN_URL === null ? ` (${PG_SKIP_REASON})` : ''}`, () => {
  for (const loss of LOSSES)
    it.skipIf(PG_ADMIN_URL === null)(
      `postgres: the claim session ${loss.name}: the first run stops or keeps its claim, never merges a line the set overrides`,
      async () => {
        assertBuilt();
        const db = await freshServerDb();
        try {
          expect((await runCli(['init', '--db', db.url])).code).toBe(0);
          await loss.before?.(db);
          const dir = survivalPath('lost-file-claim');
          const files = writeOverriddenSet(dir, KEYS);
          const release = join(dir, 'release-slow');
          // inside a.csv, holding its claim: 20 lines committed
          const slow = startCli(['load', ...files, '--db', db.url, '--settle', '0', '--batch-size', '1'], {
            env: { ORDER_LOADER_TEST_HOLD_AFTER: 'staged_checkpoint:20', ORDER_LOADER_TEST_HOLD_UNTIL: release },
          });
          expect(await slow.waitFor(/holding after staged_checkpoint #20/)).toBe(true);
          await loss.lose(db);

          const fast = await runCli(['load', ...files, '--db', db.url, '--settle', '0', '--lock-timeout', loss.lost ? '30s' : '3s']);
          writeFileSync(release, '');
          const slowEnd = await slow.done;
          const said = `${fast.stdout}${fast.stderr}${slowEnd.stdout}${slowEnd.stderr}`;
          if (loss.lost) {
            // the second run staged the set whole (c.csv's lines are ERROR: exit 2); the first stopped at its next batch
            expect(fast.code, said).toBe(2);
            expect(slowEnd.code, said).toBe(1);
            expect(slowEnd.stderr).toMatch(/a\.csv: this run's claim on the file ended while it staged it .*run the command again/);
          } else {
            expect(fast.code, said).toBe(1);
            expect(fast.stderr).toMatch(/stages the same file; gave up after waiting 3s/);
            expect(slowEnd.code, said).toBe(2);
          }
          // before any other command, which would close a dead process's runs itself
          const running = await db.sql<{ n: number }>("SELECT count(*)::int AS n FROM load_run WHERE status = 'RUNNING'");
          expect(running, 'every run closed').toEqual([{ n: 0 }]);
          const stopped = await db.sql<{ n: number }>(
            "SELECT count(*)::int AS n FROM load_run WHERE status = 'FAILED' AND message LIKE '%claim on the file ended while it staged it%'",
          );
          expect(stopped, 'the first run FAILED, saying why').toEqual([{ n: loss.lost ? 1 : 0 }]);
          const rerun = await runCli(['load', ...files, '--db', db.url, '--settle', '0']);
          expect(rerun.code, `${rerun.stdout}${rerun.stderr}`).toBe(2);
          const merged = await db.sql<{ n: number }>("SELECT count(*)::int AS n FROM orders WHERE source_key LIKE 'K%'");
          expect(merged, `keys of a.csv in orders although their last line (c.csv) is invalid\n${said}`).toEqual([{ n: 0 }]);
        } finally {
          await db.dispose();
        }
      },
      300_000,
    );
});
