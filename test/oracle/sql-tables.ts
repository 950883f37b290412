/**
 * The tables a SQL text names, read from the text as sent (for the bench's "only its own tables"
 * check, bench-workspace.recording.test.ts). A small reader for the statements of sql/oracle/:
 * the names after FROM / JOIN (comma lists included), INTO, UPDATE, USING, TABLE (CREATE, DROP,
 * LOCK, ALTER), ON of CREATE INDEX, REFERENCES; subqueries in parentheses are read too. String
 * literals, quoted identifiers and comments are skipped; optimizer hints are returned apart.
 */

const KEYWORDS_AFTER_TABLE = new Set([
  'WHERE',
  'GROUP',
  'ORDER',
  'HAVING',
  'UNION',
  'MINUS',
  'INTERSECT',
  'CONNECT',
  'START',
  'FOR',
  'FETCH',
  'OFFSET',
  'ON',
  'JOIN',
  'INNER',
  'LEFT',
  'RIGHT',
  'FULL',
  'CROSS',
  'SET',
  'WHEN',
  'USING',
  'VALUES',
  'RETURNING',
  'IN',
  'LOG',
]);

type Token = { kind: 'word'; text: string } | { kind: 'punct'; text: string };

/** Words (upper case) and punctuation, without literals, quoted identifiers, comments and binds; hints apart. */
export function tokens(sql: string): { tokens: Token[]; hints: string[] } {
  const out: Token[] = [];
  const hints: string[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql.charAt(i);
    if (/\s/.test(ch)) i++;
    else if (ch === "'") {
      let end = i + 1;
      for (;;) {
        end = sql.indexOf("'", end);
        if (end < 0) throw new Error(`unterminated literal in: ${sql}`);
        if (sql[end + 1] === "'") end += 2;
        else break;
      }
      out.push({ kind: 'punct', text: "''" });
      i = end + 1;
    } else if (ch === '"') {
      const end = sql.indexOf('"', i + 1);
      out.push({ kind: 'word', text: sql.slice(i, end + 1) });
      i = end + 1;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (sql[i + 2] === '+') hints.push(sql.slice(i + 3, end));
      i = end + 2;
    } else if (ch === ':' && /[A-Za-z]/.test(sql[i + 1] ?? '')) {
      const m = /^:[A-Za-z][A-Za-z0-9_$#]*/.exec(sql.slice(i));
      i += m?.[0].length ?? 1;
    } else if (/[A-Za-z]/.test(ch)) {
      const m = /^[A-Za-z][A-Za-z0-9_$#]*/.exec(sql.slice(i));
      const word = m?.[0] ?? ch;
      out.push({ kind: 'word', text: word.toUpperCase() });
      i += word.length;
    } else {
      out.push({ kind: 'punct', text: ch });
      i++;
    }
  }
  return { tokens: out, hints };
}

/** Upper-case names of the tables (and views) the statement reads or writes, in order. */
export function tablesNamed(sql: string): string[] {
  const { tokens: t } = tokens(sql);
  const names: string[] = [];
  const word = (k: number) => (t[k]?.kind === 'word' ? t[k].text : null);
  /** A table reference at k (a name, not a parenthesis); returns the index after name [alias]. */
  const tableAt = (k: number): number => {
    const name = word(k);
    if (name === null) return k;
    // schema.table: the table is the last part
    if (t[k + 1]?.text === '.' && word(k + 2) !== null) {
      names.push(`${name}.${word(k + 2) ?? ''}`);
      k += 3;
    } else {
      names.push(name);
      k += 1;
    }
    return k;
  };
  for (let k = 0; k < t.length; k++) {
    const w = word(k);
    if (w === null) continue;
    const prev = word(k - 1);
    if (w === 'FROM' || w === 'JOIN') {
      // a comma list of table references, each with an optional alias
      let j = k + 1;
      for (;;) {
        if (t[j]?.text === '(') break; // a subquery: its own FROM is read in turn
        j = tableAt(j);
        const alias = word(j);
        if (alias !== null && !KEYWORDS_AFTER_TABLE.has(alias)) j++;
        if (t[j]?.text !== ',') break;
        j++;
      }
    } else if (w === 'UPDATE' && (prev === 'FOR' || word(k + 1) === 'SET')) {
      continue; // FOR UPDATE: a lock clause; MERGE's WHEN MATCHED THEN UPDATE SET
    } else if (w === 'INTO' || w === 'UPDATE' || w === 'REFERENCES') {
      if (t[k + 1]?.text !== '(') tableAt(k + 1);
    } else if (w === 'USING' && prev !== null && t[k + 1]?.text !== '(') {
      tableAt(k + 1);
    } else if (
      w === 'TABLE' &&
      (prev === 'CREATE' || prev === 'TEMPORARY' || prev === 'DROP' || prev === 'LOCK' || prev === 'ALTER' || prev === 'TRUNCATE')
    ) {
      tableAt(k + 1);
    } else if (w === 'ON' && t.slice(0, k).some((x) => x.text === 'INDEX') && word(0) === 'CREATE') {
      tableAt(k + 1);
    }
  }
  // a WITH clause's query names are not tables
  const queryNames = new Set(
    t.flatMap((x, k) =>
      x.kind === 'word' && (word(k - 1) === 'WITH' || t[k - 1]?.text === ',') && word(k + 1) === 'AS' && t[k + 2]?.text === '('
        ? [x.text]
        : [],
    ),
  );
  return names.filter((n) => !queryNames.has(n));
}

/** The words of the statement's optimizer hints (upper case). */
export function hintWords(sql: string): string[] {
  return tokens(sql).hints.flatMap((h) =>
    tokens(h)
      .tokens.filter((x) => x.kind === 'word')
      .map((x) => x.text),
  );
}
