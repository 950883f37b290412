/**
 * Every statement the Oracle job's tests send to Oracle themselves (not the loader's own: those
 * are sql/oracle and src/engine/oracle, checked by their recording tests), found in the source of
 * those tests and translated the way they are translated on the way to Oracle:
 *  - `db.sql(text)` / `sql(text)` in the shared integration tests and their helpers:
 *    oracleTestSql (test/support/oracle-query.ts), and for the invariants' queries toOracleSql
 *    first (test/oracle-server/oracle-sql.ts);
 *  - `connection.execute(text)` in test/oracle-server/*.test.ts: sent as written.
 * A statement is a string literal, a template literal (each `${…}` becomes a value the test could
 * put there: see `substitute`), the Oracle branch of `kind === 'oracle' ? … : …`, or a `const` of
 * the same file holding one. A call that never runs on
 * Oracle is left out: inside `targetTest.skipIf(target.kind === 'oracle')(…)`, inside a branch
 * taken only for another engine (`if (target.kind !== 'oracle')`, `kind === 'pglite'`…), or in a
 * file the Oracle job runs no test of (FILES lists those it does).
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { toOracleSql } from '../oracle-server/oracle-sql.js';
import { oracleTestSql } from './oracle-query.js';

/**
 * The files with tests the Oracle job runs (`npx vitest list --config
 * test/oracle-server/vitest.config.ts --mode list`), and the helpers whose `sql` they pass on.
 */
export const ORACLE_JOB_TEST_FILES = [
  'test/integration/attempts-and-retry.test.ts',
  'test/integration/attributes.test.ts',
  'test/integration/bad-input.test.ts',
  'test/integration/bytes-read.test.ts',
  'test/integration/control-totals.test.ts',
  'test/integration/dry-run.test.ts',
  'test/integration/encoding-refusal.test.ts',
  'test/integration/errors-export.test.ts',
  'test/integration/errors-fixed-keys.test.ts',
  'test/integration/expected-state.test.ts',
  'test/integration/faults.test.ts',
  'test/integration/file-claims.test.ts',
  'test/integration/hold-sets.test.ts',
  'test/integration/inbox.test.ts',
  'test/integration/later-load-keys.test.ts',
  'test/integration/load.test.ts',
  'test/integration/operations.test.ts',
  'test/integration/outputs.test.ts',
  'test/integration/profile-routing.test.ts',
  'test/integration/profiles.test.ts',
  'test/integration/refused-last-line.test.ts',
  'test/integration/rejected-once.test.ts',
  'test/integration/repeated-identical-line.test.ts',
  'test/integration/restage.test.ts',
  'test/integration/review-adversary.test.ts',
  'test/integration/review-edits.test.ts',
  'test/integration/review-page.test.ts',
  'test/integration/row-problems.test.ts',
  'test/integration/skipped-file-exit.test.ts',
  'test/integration/stage-holds.test.ts',
  'test/integration/staging-history.test.ts',
  'test/integration/staging-refusal.test.ts',
  'test/integration/stray-quotes.test.ts',
  'test/integration/test-database-contract.test.ts',
  'test/integration/waiting-rows.test.ts',
  'test/oracle-server/bench.test.ts',
  'test/oracle-server/direct-staging.test.ts',
  'test/oracle-server/later-load-keys.test.ts',
  'test/oracle-server/load-places.test.ts',
  'test/oracle-server/session-settings.test.ts',
  'test/oracle-server/survival.test.ts',
] as const;

/** Helpers whose statements reach Oracle through oracleInvariantSql (LIMIT and row comparisons translated). */
export const INVARIANT_HELPERS = ['test/support/invariants.ts'] as const;
/** Helpers given the Oracle target's db.sql as it is. */
export const PLAIN_HELPERS = ['test/support/expected-state.ts', 'test/support/file-invariants.ts'] as const;

export interface TestStatement {
  /** file:line of the call */
  where: string;
  /** as Oracle receives it */
  text: string;
}

/**
 * What a `${…}` of a test's template stands for: a name where one goes (after TABLE, TRIGGER, INTO,
 * FROM, or the start of a name: `${prefix}_OWNER`), else a number (ids, counts).
 */
function substitute(before: string, after: string): string {
  if (/\b(TABLE|TRIGGER|INTO|FROM|JOIN|UPDATE)\s+$/i.test(before) || /^\w/.test(after)) return 'TEST_NAME';
  return '1';
}

/** Oracle's CLOB columns of the loader's tables (sql/oracle/migrations). */
export const ORACLE_CLOB_COLUMNS = ['raw_record', 'counts', 'detail', 'old_values', 'new_values', 'attributes'] as const;

/**
 * Where a statement uses a CLOB column as Oracle refuses at run time (ORA-00932, which a syntax
 * check does not see): in ORDER BY, GROUP BY, DISTINCT, or compared with = / <> / IN.
 */
export function clobMisuse(text: string): string[] {
  const found: string[] = [];
  const sql = text.replace(/'[^']*'/g, "''");
  for (const column of ORACLE_CLOB_COLUMNS) {
    const c = `(?:\\w+\\.)?${column}\\b`;
    const rules: [string, RegExp][] = [
      ['ORDER BY', new RegExp(`\\bORDER\\s+BY\\b[^)]*?(?<![\\w(])${c}(?!\\s*\\()`, 'i')],
      ['GROUP BY', new RegExp(`\\bGROUP\\s+BY\\b[^)]*?(?<![\\w(])${c}`, 'i')],
      ['DISTINCT', new RegExp(`\\bDISTINCT\\s+(?:[^()]*?,\\s*)?${c}`, 'i')],
      ['a comparison', new RegExp(`(?<![\\w(])${c}\\s*(=|<>|!=|\\bIN\\b)`, 'i')],
    ];
    for (const [what, rule] of rules) if (rule.test(sql)) found.push(`${column} in ${what}`);
  }
  return found;
}

function literalText(node: ts.Node, file: ts.SourceFile, consts: Map<string, ts.Expression>): string | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) {
    let text = node.head.text;
    for (const span of node.templateSpans) text += substitute(text, span.literal.text) + span.literal.text;
    return text;
  }
  if (ts.isConditionalExpression(node)) {
    // db.kind === 'oracle' ? ORACLE_TEXT : POSTGRES_TEXT (or !==): the branch Oracle takes
    const condition = node.condition.getText(file);
    if (/kind\s*===\s*'oracle'/.test(condition)) return literalText(node.whenTrue, file, consts);
    if (/kind\s*!==\s*'oracle'/.test(condition)) return literalText(node.whenFalse, file, consts);
    return null;
  }
  if (ts.isParenthesizedExpression(node)) return literalText(node.expression, file, consts);
  if (ts.isIdentifier(node)) {
    const value = consts.get(node.text);
    return value === undefined ? null : literalText(value, file, consts);
  }
  return null;
}

/** True when `node` sits where only another engine goes. */
function notOnOracle(node: ts.Node, file: ts.SourceFile): boolean {
  for (let at: ts.Node = node.parent; !ts.isSourceFile(at); at = at.parent) {
    if (ts.isCallExpression(at) && ts.isCallExpression(at.expression)) {
      const callee = at.expression.getText(file);
      if (/\.skipIf\(\s*\w+\.kind\s*===\s*'oracle'\s*\)$/.test(callee)) return true;
    }
    if (ts.isIfStatement(at) && (at.thenStatement === node || isWithin(node, at.thenStatement))) {
      const condition = at.expression.getText(file);
      if (/kind\s*!==\s*'oracle'|kind\s*===\s*'(pglite|postgres)'/.test(condition)) return true;
    }
  }
  return false;
}

function isWithin(node: ts.Node, container: ts.Node): boolean {
  return node.pos >= container.pos && node.end <= container.end;
}

/** The statements of one file: calls of `sql` / `.sql` (or `.execute` when `execute`). */
export function statementsOf(path: string, options: { execute?: boolean; invariants?: boolean } = {}): TestStatement[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const consts = new Map<string, ts.Expression>();
  const calls: ts.CallExpression[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer !== undefined) {
      consts.set(node.name.text, node.initializer);
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
      if (name === 'sql' || (options.execute === true && name === 'execute' && ts.isPropertyAccessExpression(callee))) calls.push(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  const out: TestStatement[] = [];
  for (const call of calls) {
    const first = call.arguments[0];
    if (first === undefined || notOnOracle(call, file)) continue;
    const text = literalText(first, file, consts);
    if (text === null) continue; // a variable passed on (the helpers' own calls are read in their files)
    const line = file.getLineAndCharacterOfPosition(call.getStart(file)).line + 1;
    const translated = options.execute === true ? text : oracleTestSql(options.invariants === true ? toOracleSql(text) : text);
    out.push({ where: `${path}:${line}`, text: translated });
  }
  return out;
}

/** Every statement the Oracle job's tests send themselves, as Oracle receives it. */
export function oracleJobTestStatements(): TestStatement[] {
  return [
    ...ORACLE_JOB_TEST_FILES.flatMap((f) => statementsOf(f, { execute: f.startsWith('test/oracle-server/') })),
    ...INVARIANT_HELPERS.flatMap((f) => statementsOf(f, { invariants: true })),
    ...PLAIN_HELPERS.flatMap((f) => statementsOf(f)),
  ];
}
