import { readSql } from '../../sql-files.js';

/**
 * SQL text of sql/oracle/ as sent to the server, and the text helpers that keep bind values
 * inside the column sizes. Full-line `--` comments are removed (the server would accept them;
 * removing them keeps the statement text short and the statement cache key stable).
 */

export function stripCommentLines(text: string): string {
  return text
    .split(/\r?\n/)
    .filter((line) => !/^\s*--/.test(line))
    .join('\n')
    .trim();
}

const cache = new Map<string, string>();

/** sql/oracle/queries/<name>.sql without its comment lines. */
export function oracleQuery(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = stripCommentLines(readSql('oracle', `queries/${name}.sql`));
    cache.set(name, text);
  }
  return text;
}

/**
 * Split a migration (or bootstrap) file into statements: blocks separated by a line that
 * holds only "/" (the SQL*Plus convention, so a DBA can also run the file there). Blocks
 * that hold only comments are dropped.
 */
export function splitStatements(text: string): string[] {
  return text
    .split(/^[ \t]*\/[ \t\r]*$/m)
    .map((block) => stripCommentLines(block))
    .filter((block) => block !== '');
}

/** UTF-8 byte length: node-oracledb checks bindDefs.maxSize against it (NJS-058). */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** At most `max` characters (code points, as Oracle counts CHAR semantics in AL32UTF8). */
export function cutChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = Array.from(text);
  return points.length <= max ? text : points.slice(0, max).join('');
}

/** At most `max` UTF-8 bytes, never splitting a character. */
export function cutBytes(text: string, max: number): string {
  if (byteLength(text) <= max) return text;
  let out = '';
  let used = 0;
  for (const ch of text) {
    const n = byteLength(ch);
    if (used + n > max) break;
    out += ch;
    used += n;
  }
  return out;
}

/** Oracle stores '' as NULL; NOT NULL text columns get this instead of an empty string. */
export function nonEmpty(text: string | null | undefined, fallback: string): string {
  return text === null || text === undefined || text === '' ? fallback : text;
}

/** UTC text for the explicit TO_TIMESTAMP(..., 'YYYY-MM-DD"T"HH24:MI:SS.FF3') conversion. */
export function utcTimestampText(date: Date): string {
  return date.toISOString().slice(0, 23);
}

/** Parse the 'YYYY-MM-DDTHH24:MI:SS.FF3Z' text the queries return. */
export function parseUtcText(text: unknown): Date | null {
  if (text === null || text === undefined) return null;
  if (text instanceof Date) return text;
  if (typeof text !== 'string' && typeof text !== 'number') throw new Error('Oracle engine: unexpected timestamp value from the database');
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw new Error('Oracle engine: unexpected timestamp text from the database');
  return date;
}
