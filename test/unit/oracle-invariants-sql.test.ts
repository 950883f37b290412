import { describe, expect, it } from 'vitest';
import { checkInvariants, statusCounts, type Sql } from '../support/invariants.js';
import { toOracleSql } from '../oracle-server/oracle-sql.js';

/** Every statement checkInvariants and statusCounts send, answered with no rows. */
async function invariantStatements(): Promise<string[]> {
  const seen: string[] = [];
  const recording: Sql = async <R>(text: string) => {
    seen.push(text);
    return [] as R[];
  };
  await checkInvariants(recording, { sourceKeys: ['K-1'], exclusive: true });
  await checkInvariants(recording, { allowUnfinished: true });
  await statusCounts(recording);
  return seen;
}

describe('the invariants in Oracle SQL (test/oracle-server/oracle-sql.ts)', () => {
  it('no LIMIT and no row IS DISTINCT FROM is left in any statement of the invariants', async () => {
    const statements = await invariantStatements();
    expect(statements.some((s) => /\bLIMIT\b/.test(s))).toBe(true);
    expect(statements.some((s) => /IS DISTINCT FROM/.test(s))).toBe(true);
    for (const s of statements.map(toOracleSql)) {
      expect(s).not.toMatch(/\bLIMIT\b/i);
      expect(s).not.toMatch(/DISTINCT\s+FROM/i);
    }
  });

  it('LIMIT n becomes FETCH FIRST n ROWS ONLY; a row comparison becomes DECODE per column (NULLs equal)', () => {
    expect(toOracleSql('SELECT a FROM t ORDER BY a LIMIT 50')).toBe('SELECT a FROM t ORDER BY a FETCH FIRST 50 ROWS ONLY');
    expect(toOracleSql('WHERE (s.a, s.b) IS DISTINCT FROM (o.a, o.b)')).toBe(
      'WHERE (DECODE(s.a, o.a, 0, 1) = 1 OR DECODE(s.b, o.b, 0, 1) = 1)',
    );
    expect(() => toOracleSql('(a, b) IS DISTINCT FROM (c)')).toThrow(/2 and 1 columns/);
  });
});
