import type { Sql } from '../support/invariants.js';

/**
 * The invariants of test/support/invariants.ts on Oracle. The Oracle target's sql() already
 * drops ::casts and numbers the binds; two more constructs of those queries have no Oracle
 * spelling: LIMIT n (FETCH FIRST n ROWS ONLY) and a row comparison
 * (a, b) IS DISTINCT FROM (c, d), which becomes DECODE(a, c, 0, 1) = 1 OR …: DECODE treats
 * two NULLs as equal, as IS DISTINCT FROM does.
 */
export function toOracleSql(text: string): string {
  return text
    .replace(/\bLIMIT\s+(\d+)/gi, 'FETCH FIRST $1 ROWS ONLY')
    .replace(/\(([^()]+)\)\s*IS\s+DISTINCT\s+FROM\s*\(([^()]+)\)/gi, (_match, left: string, right: string) => {
      const a = left.split(',').map((s) => s.trim());
      const b = right.split(',').map((s) => s.trim());
      if (a.length !== b.length) throw new Error(`row comparison of ${a.length} and ${b.length} columns: ${left} / ${right}`);
      return `(${a.map((column, i) => `DECODE(${column}, ${b[i] ?? ''}, 0, 1) = 1`).join(' OR ')})`;
    });
}

/** An invariants `Sql` over the Oracle target's sql(). */
export function oracleInvariantSql(sql: Sql): Sql {
  return (text, params) => sql(toOracleSql(text), params);
}
