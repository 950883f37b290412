/**
 * The named mutants (test/mutants/named-mutants.ts) are killed: each applied to its own copy of
 * the tree, the tests it names fail there. The copy holds the sources, SQL, tests and dist/ (a
 * mutant of src/ reaches the in-process tests through the TypeScript sources; the PGlite folder
 * of a run is made by the built bin, which reads the copy's sql/); its node_modules links each
 * package of this one, and the cache of migrated PGlite folders (keyed by content) is shared.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { dropDatabase } from '../../bench/pg-admin.js';
import { NAMED_MUTANTS, type NamedMutant } from '../mutants/named-mutants.js';
import { PG_TEMPLATE_DB } from '../support/databases.js';
import { NEEDS, unavailable } from '../support/requirements.js';
import { TEST_PG_URL } from '../support/server-url.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** What a test run needs of the tree (not .git, not node_modules). */
const COPIED = [
  'src',
  'sql',
  'test',
  'bench',
  'dist',
  'fixtures',
  'examples',
  'package.json',
  'tsconfig.json',
  'tsconfig.test.json',
  'vitest.config.ts',
];
/** Kept per copy: vitest's transform cache is keyed by path too. */
const NOT_LINKED = new Set(['.experimental-vitest-cache', '.vite', '.vitest']);

const work = mkdtempSync(join(tmpdir(), 'order-loader-mutants-'));
afterAll(() => {
  if (process.env.KEEP_MUTANT_COPY === undefined) rmSync(work, { recursive: true, force: true });
});

function copyOfTree(name: string): string {
  const dir = join(work, name);
  for (const entry of COPIED) cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
  mkdirSync(join(dir, 'node_modules'));
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    if (!NOT_LINKED.has(entry)) symlinkSync(join(ROOT, 'node_modules', entry), join(dir, 'node_modules', entry));
  }
  return dir;
}

function applyMutant(dir: string, mutant: NamedMutant): void {
  const path = join(dir, mutant.file);
  const text = readFileSync(path, 'utf8');
  // exactly once: a mutant whose text is gone (the code moved on) must be updated, not pass
  const occurrences = mutant.occurrences ?? 1;
  expect(text.split(mutant.from).length - 1, `${mutant.file} holds the mutated text ${occurrences} time(s)`).toBe(occurrences);
  // a function: a replacement string would read $$ (PL/pgSQL's quotes) as one $
  writeFileSync(
    path,
    text.replaceAll(mutant.from, () => mutant.to),
  );
}

/** The server template of a tree's migrations (test/support/databases.ts, PG_TEMPLATE_DB). */
function templateDbOf(dir: string): string {
  const folder = join(dir, 'sql/postgres/migrations');
  const texts = readdirSync(folder)
    .filter((f) => /^\d+_.+\.sql$/.test(f))
    .sort()
    .map((f) => readFileSync(join(folder, f), 'utf8'));
  return `order_loader_tmpl_${createHash('sha1').update(texts.join('\n')).digest('hex').slice(0, 12)}`;
}

/**
 * The child's environment: a run of its own, so none of the variables vitest sets for its workers
 * (VITEST_*, MODE, DEV, SSR, …: a nested run that inherited them failed at startup); what
 * decides what it tests (ORDER_LOADER_*, CI) passes through.
 */
function childEnv(): NodeJS.ProcessEnv {
  const kept = Object.entries(process.env).filter(
    ([name]) => name.startsWith('ORDER_LOADER_') || ['PATH', 'HOME', 'TMPDIR', 'CI', 'LANG'].includes(name),
  );
  return Object.fromEntries(kept);
}

interface JsonReport {
  output?: string;
  numFailedTests: number;
  numPassedTests: number;
  testResults: Array<{ assertionResults: Array<{ fullName: string; status: string }> }>;
}

/** The output of a child process, and how it ended (killed after `timeoutMs`). */
function runChild(args: string[], cwd: string, timeoutMs: number): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...childEnv(), FORCE_COLOR: '0' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve({ stdout, stderr });
    });
  });
}

/**
 * Two nested runs at a time (each a vitest of up to 3 workers): on 2 cores the 14 took 129 s one
 * at a time. More at once would slow the lock-wait tests they run past their own bounds.
 */
const slots = { free: 2, waiting: [] as Array<() => void> };
async function inSlot<T>(work: () => Promise<T>): Promise<T> {
  if (slots.free > 0) slots.free--;
  else await new Promise<void>((resolve) => slots.waiting.push(resolve));
  try {
    return await work();
  } finally {
    const next = slots.waiting.shift();
    if (next === undefined) slots.free++;
    else next();
  }
}

async function runKillingTests(dir: string, mutant: NamedMutant): Promise<JsonReport> {
  const out = join(dir, 'vitest-report.json');
  const result = await inSlot(() =>
    runChild(
      [
        join(ROOT, 'node_modules/vitest/vitest.mjs'),
        'run',
        // the killing file runs in whichever project holds it (the CLI, kill and lock-wait files are in slow)
        '--project',
        'fast',
        '--project',
        'slow',
        mutant.killedBy.file,
        '--testNamePattern',
        mutant.killedBy.testNamePattern,
        '--reporter=json',
        `--outputFile=${out}`,
      ],
      dir,
      300_000,
    ),
  );
  expect(existsSync(out), `vitest wrote no report: ${result.stderr.slice(-2000)}`).toBe(true);
  return {
    ...(JSON.parse(readFileSync(out, 'utf8')) as JsonReport),
    output: `${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`,
  };
}

describe.concurrent('named mutants are killed (test/mutants/named-mutants.ts)', () => {
  for (const mutant of NAMED_MUTANTS) {
    const skip = mutant.serverOnly === true && unavailable(NEEDS.server);
    it.skipIf(skip)(`${mutant.name}: ${mutant.defect}`, { timeout: 360_000 }, async () => {
      const dir = copyOfTree(mutant.name);
      applyMutant(dir, mutant);
      const template = templateDbOf(dir);
      try {
        const report = await runKillingTests(dir, mutant);
        const failed = report.testResults.flatMap((f) => f.assertionResults.filter((a) => a.status === 'failed').map((a) => a.fullName));
        // the named tests ran (the pattern still matches), and at least one of them failed
        expect(report.numPassedTests + report.numFailedTests, `tests run: ${report.output ?? ''}`).toBeGreaterThan(0);
        expect(
          failed,
          `no test of ${mutant.killedBy.file} matching "${mutant.killedBy.testNamePattern}" failed: the mutant survives`,
        ).not.toEqual([]);
        // on every target the mutant reaches, not only on one of them
        for (const kind of (mutant.failOn ?? []).filter((k) => k === 'pglite' || TEST_PG_URL !== null)) {
          expect(
            failed.filter((name) => name.includes(`'${kind}'`)),
            `a test failing on ${kind}`,
          ).not.toEqual([]);
        }
      } finally {
        if (process.env.KEEP_MUTANT_COPY === undefined) rmSync(dir, { recursive: true, force: true });
        if (TEST_PG_URL !== null && template !== PG_TEMPLATE_DB) await dropDatabase(TEST_PG_URL, template);
      }
    });
  }
});
