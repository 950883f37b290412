/**
 * Tests that need something a machine may lack: a PostgreSQL server (ORDER_LOADER_TEST_PG), the
 * built CLI (dist/), PostgreSQL 15's server binaries. `unavailable(need)` says whether to skip:
 *
 *   describe.skipIf(unavailable(NEEDS.server))('… on server PostgreSQL', () => { … });
 *
 *  - present: false, the tests run;
 *  - missing, locally: true (they skip), and the skip is recorded: the run ends with one line
 *    saying what did not run and why (`skipSummary`, printed by test/support/global-setup.ts);
 *  - missing with CI=true, for a need CI must have (`ci: true`: the server and the build, which
 *    .ci/run provides): in place of the skipped tests, one test that fails and says what is
 *    missing. A CI run that silently skipped them would pass without having tested them.
 *
 * The Oracle suite (test/oracle-server/vitest.config.ts, ORDER_LOADER_TEST_ORACLE_SUITE=1) runs
 * only the tests named "oracle" of the same files: there the others are neither run nor failed.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject, test, TestRunner } from 'vitest';
import { CLI } from './pglite-template.js';
import { privatePostgresUnavailable } from '../survival/private-postgres.js';
import { TEST_PG_URL } from './server-url.js';

export interface Need {
  /** What is missing, said in the summary and the CI failure. */
  what: string;
  /** How to provide it. */
  fix: string;
  /** null: present; otherwise why it is missing. */
  missing(): string | null;
  /** CI must have it: with CI=true, missing is a failure. */
  ci: boolean;
}

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export const NEEDS = {
  server: {
    what: 'server PostgreSQL',
    fix: 'set ORDER_LOADER_TEST_PG (e.g. postgres://postgres@127.0.0.1:5432/test)',
    missing: () => (TEST_PG_URL === null ? 'ORDER_LOADER_TEST_PG is not set' : null),
    ci: true,
  },
  cli: {
    what: 'the built CLI',
    fix: 'npm run build:emit (npm test does it)',
    missing: () => (existsSync(CLI) ? null : `${relative(REPO_ROOT, CLI)} is missing`),
    ci: true,
  },
  // CI's PostgreSQL is a service container: the runner need not have PostgreSQL 15's binaries
  privatePostgres: {
    what: "PostgreSQL 15's server binaries (a private instance)",
    fix: 'apt-get install postgresql-15',
    missing: privatePostgresUnavailable,
    ci: false,
  },
} satisfies Record<string, Need>;

const SKIPS_FILE = 'skipped-requirements.jsonl';

interface SkipRecord {
  what: string;
  fix: string;
  file: string;
}

/** Skip (true) when one of `needs` is missing: see the top of this file. */
export function unavailable(...needs: Need[]): boolean {
  const missing = needs.flatMap((need) => {
    const why = need.missing();
    return why === null ? [] : [{ need, why }];
  });
  if (missing.length === 0) return false;
  if (process.env.ORDER_LOADER_TEST_ORACLE_SUITE === '1') return true;
  const required = missing.filter((m) => m.need.ci);
  if (process.env.CI === 'true' && required.length > 0) {
    const message = required.map((m) => `${m.why}: CI runs these tests, ${m.need.fix}`).join('; ');
    test(`needs ${required.map((m) => m.need.what).join(' and ')} (CI=true: a missing requirement fails)`, () => {
      throw new Error(message);
    });
    return true;
  }
  for (const { need } of missing) recordSkip(need);
  return true;
}

/**
 * For a list of test targets (testTargets): the stand-in of a target whose need is missing. With
 * CI=true, a target whose every test fails saying what is missing; locally null (no such target,
 * the skip recorded).
 */
export function missingTarget(kind: string, need: Need): { kind: string; create(): Promise<never> } | null {
  const why = need.missing();
  if (why === null || process.env.ORDER_LOADER_TEST_ORACLE_SUITE === '1') return null;
  if (process.env.CI === 'true' && need.ci) {
    const error = new Error(`${why}: CI runs every target test on ${need.what} too, ${need.fix}`);
    return { kind, create: () => Promise.reject(error) };
  }
  recordSkip(need);
  return null;
}

/** Record that tests needing `need` did not run (read by skipSummary at the end of the run). */
export function recordSkip(need: Need): void {
  let root: string | undefined;
  try {
    root = inject('testTempRoot');
  } catch {
    root = undefined;
  }
  // a project without the global setup (fast-isolated) has no run folder, and no such test
  if (root === undefined) return;
  const record: SkipRecord = { what: need.what, fix: need.fix, file: relative(REPO_ROOT, TestRunner.getCurrentSuite().file.filepath) };
  appendFileSync(join(root, SKIPS_FILE), `${JSON.stringify(record)}\n`);
}

/** One line saying what did not run here and why, or null when everything ran. */
export function skipSummary(tempRoot: string): string | null {
  const path = join(tempRoot, SKIPS_FILE);
  if (!existsSync(path)) return null;
  const byNeed = new Map<string, { fix: string; files: Set<string>; blocks: number }>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line === '') continue;
    const record = JSON.parse(line) as SkipRecord;
    const entry = byNeed.get(record.what) ?? { fix: record.fix, files: new Set<string>(), blocks: 0 };
    entry.files.add(record.file);
    entry.blocks += 1;
    byNeed.set(record.what, entry);
  }
  if (byNeed.size === 0) return null;
  const parts = [...byNeed].map(
    ([what, e]) => `${e.blocks} test block(s) in ${e.files.size} file(s) need ${what} (${e.fix}): ${[...e.files].sort().join(', ')}`,
  );
  return `NOT RUN here (skipped, not failed): ${parts.join('; ')}`;
}
