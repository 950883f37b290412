/**
 * Oracle's reserved words (Oracle Database SQL Language Reference, appendix "Oracle SQL Reserved
 * Words"; V$RESERVED_WORDS with RESERVED = 'Y'): none can name a column alias or a table alias
 * unquoted. The PL/SQL grammar check accepts several of them there (ROWS, LEVEL, SIZE, FILE…),
 * so this is checked apart: `count(*) AS rows` passes the grammar and Oracle refuses it (ORA-00923).
 */
export const ORACLE_RESERVED_WORDS: ReadonlySet<string> = new Set(
  `ACCESS ADD ALL ALTER AND ANY AS ASC AUDIT BETWEEN BY CHAR CHECK CLUSTER COLUMN COMMENT COMPRESS
  CONNECT CREATE CURRENT DATE DECIMAL DEFAULT DELETE DESC DISTINCT DROP ELSE EXCLUSIVE EXISTS FILE
  FLOAT FOR FROM GRANT GROUP HAVING IDENTIFIED IMMEDIATE IN INCREMENT INDEX INITIAL INSERT INTEGER
  INTERSECT INTO IS LEVEL LIKE LOCK LONG MAXEXTENTS MINUS MLSLABEL MODE MODIFY NOAUDIT NOCOMPRESS
  NOT NOWAIT NULL NUMBER OF OFFLINE ON ONLINE OPTION OR ORDER PCTFREE PRIOR PUBLIC RAW RENAME
  RESOURCE REVOKE ROW ROWID ROWNUM ROWS SELECT SESSION SET SHARE SIZE SMALLINT START SUCCESSFUL
  SYNONYM SYSDATE TABLE THEN TO TRIGGER UID UNION UNIQUE UPDATE USER VALIDATE VALUES VARCHAR
  VARCHAR2 VIEW WHENEVER WHERE WITH`.split(/\s+/),
);

/** Data types, which follow AS inside CAST( … AS type): not aliases. */
const TYPES = new Set(['CHAR', 'DATE', 'DECIMAL', 'FLOAT', 'INTEGER', 'LONG', 'NUMBER', 'RAW', 'SMALLINT', 'VARCHAR', 'VARCHAR2']);

/**
 * The reserved words a statement uses as an alias (`AS word`, not a CAST's type, not a
 * subquery factored by WITH … AS (…), not CREATE … AS SELECT), in upper case. Literals and
 * quoted identifiers are left out.
 */
export function reservedAliases(text: string): string[] {
  const sql = text.replace(/'[^']*'/g, "''").replace(/"[^"]*"/g, '""');
  const found: string[] = [];
  for (const m of sql.matchAll(/\bAS\s+([A-Za-z][A-Za-z0-9_$#]*)/gi)) {
    const word = (m[1] ?? '').toUpperCase();
    if (!ORACLE_RESERVED_WORDS.has(word)) continue;
    if (word === 'SELECT' || word === 'WITH') continue; // CREATE … AS SELECT, INSERT … AS WITH
    // CAST(x AS DATE), CAST(x AS VARCHAR2(10))
    if (TYPES.has(word) && /^\s*[()]/.test(sql.slice(m.index + m[0].length))) continue;
    found.push(word);
  }
  return found;
}
