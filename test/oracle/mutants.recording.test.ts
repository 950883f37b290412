/**
 * Each realistic mutant of the Oracle statements (a lost predicate, a wrong SET) fails the checks of
 * statements.recording.test.ts (statement-checks.ts). The mutant is applied to a copy of
 * sql/oracle in a temporary folder; the engine's modules are loaded afresh (vi.resetModules)
 * with readSql (src/sql-files.ts) reading that copy (vi.doMock), and every check is run: the
 * literal checks and the model checks must each fail at least once. The unmutated copy, read
 * the same way, passes them all (so the failures are the mutant's). Runs in the `fast-isolated`
 * project (vitest.config.ts MOCKING): it replaces a module.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Check } from './statement-checks.js';

const SQL = fileURLToPath(new URL('../../sql/oracle', import.meta.url));

interface Mutant {
  name: string;
  file: string;
  /** Text of the file replaced; it must occur exactly once. */
  from: string;
  to: string;
}

const MUTANTS: Mutant[] = [
  {
    name: 'finalize marks failed rows DONE (finalize_failed.sql sets DONE, the bind kept)',
    file: 'finalize_failed.sql',
    from: 'SET process_status     = :status,',
    to: "SET process_status     = NVL2(:status, 'DONE', 'DONE'),",
  },
  {
    name: 'finalize marks failed rows DONE (finalize_done.sql reaches the rows after the merged one)',
    file: 'finalize_done.sql',
    from: 'WHERE stage_id = :stage_id',
    to: 'WHERE stage_id >= :stage_id',
  },
  {
    name: 'new-key insert without its NOT EXISTS',
    file: 'stage_batch_new.sql',
    from: '\n   AND NOT EXISTS (SELECT /*+ INDEX(s uq_order_stage_source) */ 1 FROM order_stage s WHERE s.source_key = i.source_key)',
    to: '',
  },
  {
    name: 'direct insert stages a line that failed parsing READY',
    file: 'stage_batch_direct.sql',
    from: "CASE WHEN :parse_code IS NULL THEN 'READY' ELSE 'ERROR' END",
    to: "CASE WHEN :parse_code IS NULL THEN 'READY' ELSE 'READY' END",
  },
  {
    name: 'claim without its due-time predicate',
    file: 'claim.sql',
    from: "\n   AND (process_status = 'READY' OR next_attempt_at <= SYSTIMESTAMP)",
    to: '',
  },
  {
    name: 'MERGE without its unchanged-value comparison',
    file: 'merge_orders.sql',
    from: [
      '\n WHERE DECODE(o.customer_id, src.customer_id, 0, 1) = 1',
      '    OR DECODE(o.order_date, src.order_date, 0, 1) = 1',
      '    OR DECODE(o.amount, src.amount, 0, 1) = 1',
      '    OR DECODE(o.currency, src.currency, 0, 1) = 1',
      '    OR CASE WHEN o.attributes IS NULL AND src.attributes IS NULL THEN 0',
      '            WHEN o.attributes IS NULL OR src.attributes IS NULL THEN 1',
      '            WHEN DBMS_LOB.COMPARE(o.attributes, src.attributes) = 0 THEN 0',
      '            ELSE 1 END = 1',
    ].join('\n'),
    to: '',
  },
  {
    name: 'MERGE without the attributes in its unchanged-value comparison (a changed attribute alone never reaches orders)',
    file: 'merge_orders.sql',
    from: [
      '\n    OR CASE WHEN o.attributes IS NULL AND src.attributes IS NULL THEN 0',
      '            WHEN o.attributes IS NULL OR src.attributes IS NULL THEN 1',
      '            WHEN DBMS_LOB.COMPARE(o.attributes, src.attributes) = 0 THEN 0',
      '            ELSE 1 END = 1',
    ].join('\n'),
    to: '',
  },
  {
    name: 'MERGE comparing only some values (the currency left out)',
    file: 'merge_orders.sql',
    from: '\n    OR DECODE(o.currency, src.currency, 0, 1) = 1',
    to: '',
  },
  {
    name: 'the unchanged record taken for a line the same load staged before (its not-repeated test left out)',
    file: 'stage_batch_unchanged.sql',
    from: '\n          AND DECODE(s.load_id, :load_id, 0, 1) = 1) src',
    to: ') src',
  },
  {
    name: 'the unchanged record moved to an earlier load (its WHEN MATCHED condition left out)',
    file: 'stage_batch_unchanged.sql',
    from: '\n WHERE u.load_id < :load_id',
    to: '',
  },
  {
    name: 'the later-load guard answering any load of the stage row, not only a later one',
    file: 'later_load_keys.sql',
    from: '\n             AND s.load_id > :load_id',
    to: '',
  },
  {
    name: 'the later-load guard answering any load of the unchanged record, not only a later one',
    file: 'later_load_keys.sql',
    from: '\n             AND u.load_id > :load_id',
    to: '',
  },
];

const folders: string[] = [];
afterAll(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

/** A copy of sql/oracle with `mutant` applied (none: as it is). */
function sqlCopy(mutant?: Mutant): string {
  const root = mkdtempSync(join(tmpdir(), 'oracle-mutant-'));
  folders.push(root);
  cpSync(SQL, join(root, 'oracle'), { recursive: true });
  if (mutant !== undefined) {
    const path = join(root, 'oracle', 'queries', mutant.file);
    const text = readFileSync(path, 'utf8');
    const at = text.indexOf(mutant.from);
    if (at < 0 || text.indexOf(mutant.from, at + 1) >= 0) throw new Error(`${mutant.file}: the mutated text is not there exactly once`);
    writeFileSync(path, text.slice(0, at) + mutant.to + text.slice(at + mutant.from.length));
  }
  return root;
}

/** The checks with the engine reading its Oracle SQL from `root`: the names of those that fail. */
async function failingChecks(root: string): Promise<{ literal: string[]; model: string[] }> {
  vi.resetModules();
  vi.doMock(import('../../src/sql-files.js'), async (importOriginal) => {
    const original = await importOriginal();
    return {
      ...original,
      readSql: (engine: string, relativePath: string) =>
        engine === 'oracle' ? readFileSync(join(root, 'oracle', relativePath), 'utf8') : original.readSql(engine, relativePath),
    };
  });
  try {
    const { literalChecks, modelChecks } = await import('./statement-checks.js');
    const failing = async (checks: Check[]) => {
      const names: string[] = [];
      for (const check of checks) await check.run().catch(() => names.push(check.name));
      return names;
    };
    return { literal: await failing(literalChecks), model: await failing(modelChecks) };
  } finally {
    vi.doUnmock('../../src/sql-files.js');
    vi.resetModules();
  }
}

describe('Oracle statement mutants fail the statement checks', () => {
  it('the unmutated copy, read the same way, passes every check', async () => {
    expect(await failingChecks(sqlCopy())).toEqual({ literal: [], model: [] });
  });

  it.each(MUTANTS.map((m) => [m.name, m] as const))('%s', async (_name, mutant) => {
    const failing = await failingChecks(sqlCopy(mutant));
    expect(failing.literal.length, 'a literal check fails').toBeGreaterThan(0);
    expect(failing.model.length, 'a model check fails').toBeGreaterThan(0);
  });
});
