import { createHash } from 'node:crypto';
import { listMigrations, readSql } from '../../sql-files.js';
import { objectsCreatedBy } from './schema-check.js';
import { splitStatements } from './sql-text.js';

/**
 * The loader's SQL pointed at a bench workspace's tables (workspaces.ts). On PostgreSQL a
 * workspace is a schema put first on the search_path; the Oracle loader user cannot create a
 * schema, so a workspace is the loader's tables created again under a name prefix
 * (`OLB_1A2B3C4D_ORDERS`), and every statement sent while the workspace is in scope has the
 * loader's object names replaced by the prefixed ones. The SQL stays the one of
 * sql/oracle/ (no copy): the replacement is applied to its text as sent.
 *
 * The names replaced are every table, index and named constraint the migrations (and the
 * migration bookkeeping) create, read from those files, so a table added by a later migration
 * is covered without a list to keep. Only whole unquoted identifiers are replaced, outside
 * string literals and quoted identifiers, not after a "." (a column of an alias) nor a ":" (a
 * bind name); inside an optimizer hint (a comment starting "/*+") too, where the hint names
 * the table and its index (claim.sql: INDEX_ASC(order_stage ix_order_stage_claimable)), or
 * the hint would silently be ignored and the plan change. Other comments are left as they are.
 */

/** `OLB_` and 8 upper-case hex digits: the prefix of one workspace's objects. */
export const WORKSPACE_PREFIX = /^OLB_[0-9A-F]{8}$/;

/**
 * The longest name a workspace object may have: 30 bytes, Oracle's identifier limit before
 * 12.2 and still the limit of a database whose COMPATIBLE is below 12.2 (ORA-00972 past it).
 * A loader name that does not fit after the prefix is shortened (see workspaceObjectName).
 */
export const MAX_IDENTIFIER_BYTES = 30;

/** Characters of a too-long loader name kept before its hash: 30 - 13 (prefix, '_') - 5 ('_', 4 hex). */
const KEPT_CHARS = MAX_IDENTIFIER_BYTES - 13 - 5;

let loaderObjects: ReadonlySet<string> | undefined;

/** The names (upper case, as the dictionary stores them) of every object the loader's schema holds. */
export function loaderObjectNames(): ReadonlySet<string> {
  if (loaderObjects === undefined) {
    const statements = [
      ...splitStatements(readSql('oracle', 'queries/migration_bootstrap.sql')),
      ...listMigrations('oracle').flatMap((m) => splitStatements(m.sql)),
    ];
    loaderObjects = new Set(
      statements
        .flatMap(objectsCreatedBy)
        .filter((o) => o.kind !== 'COLUMN')
        .map((o) => o.name),
    );
  }
  return loaderObjects;
}

/**
 * The name of object `name` in the workspace `prefix` (checked: both are spelled into SQL):
 * `<prefix>_<NAME>` when that fits MAX_IDENTIFIER_BYTES (OLB_1A2B3C4D_ORDERS), else the first
 * KEPT_CHARS characters of the name and 4 hex digits of its SHA-256
 * (OLB_1A2B3C4D_ORDER_LOADER_3F1C for ORDER_LOADER_MIGRATION_LOCK): the same name for the same
 * object in every process. WorkspaceSql checks that no two names of a workspace meet.
 */
export function workspaceObjectName(prefix: string, name: string): string {
  if (!WORKSPACE_PREFIX.test(prefix)) throw new Error(`not a bench workspace prefix: ${prefix}`);
  if (!/^[A-Za-z][A-Za-z0-9_$#]*$/.test(name)) throw new Error(`not a plain identifier: ${name}`);
  const upper = name.toUpperCase();
  const full = `${prefix}_${upper}`;
  if (Buffer.byteLength(full) <= MAX_IDENTIFIER_BYTES) return full;
  const hash = createHash('sha256').update(upper).digest('hex').slice(0, 4).toUpperCase();
  return `${prefix}_${upper.slice(0, KEPT_CHARS)}_${hash}`;
}

const IDENTIFIER_START = /[A-Za-z]/;
const IDENTIFIER_PART = /[A-Za-z0-9_$#]/;

/**
 * `sql` with every identifier whose upper-case spelling is a key of `names` replaced by its
 * value (see the file comment for where). A text this tokenizer cannot read safely (an
 * unterminated literal, a q'…' literal) is refused rather than half-replaced.
 */
export function replaceNames(sql: string, names: ReadonlyMap<string, string>): string {
  let out = '';
  let i = 0;
  let inHint = false; // inside /*+ … */
  let previous = ''; // the last character that is not blank, outside comments
  const n = sql.length;
  while (i < n) {
    const ch = sql.charAt(i);
    if (inHint) {
      if (ch === '*' && sql[i + 1] === '/') {
        out += '*/';
        i += 2;
        inHint = false;
        continue;
      }
    } else if (ch === "'") {
      if (/[qQ]/.test(sql[i - 1] ?? '') && !IDENTIFIER_PART.test(sql[i - 2] ?? ''))
        throw new Error("replaceNames: q'…' literals are not supported");
      let end = i + 1;
      for (;;) {
        end = sql.indexOf("'", end);
        if (end < 0) throw new Error('replaceNames: unterminated string literal');
        if (sql[end + 1] === "'") end += 2;
        else break;
      }
      out += sql.slice(i, end + 1);
      i = end + 1;
      previous = "'";
      continue;
    } else if (ch === '"') {
      const end = sql.indexOf('"', i + 1);
      if (end < 0) throw new Error('replaceNames: unterminated quoted identifier');
      out += sql.slice(i, end + 1);
      i = end + 1;
      previous = '"';
      continue;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end < 0 ? n : end;
      out += sql.slice(i, stop);
      i = stop;
      continue;
    } else if (ch === '/' && sql[i + 1] === '*') {
      if (sql[i + 2] === '+') {
        out += '/*+';
        i += 3;
        inHint = true;
        continue;
      }
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) throw new Error('replaceNames: unterminated comment');
      out += sql.slice(i, end + 2);
      i = end + 2;
      continue;
    }
    if (IDENTIFIER_START.test(ch) && !IDENTIFIER_PART.test(sql[i - 1] ?? '')) {
      let end = i + 1;
      while (end < n && IDENTIFIER_PART.test(sql.charAt(end))) end++;
      const word = sql.slice(i, end);
      const replacement = previous === '.' || previous === ':' ? undefined : names.get(word.toUpperCase());
      out += replacement ?? word;
      i = end;
      previous = 'a';
      continue;
    }
    out += ch;
    if (!/\s/.test(ch)) previous = ch;
    i++;
  }
  if (inHint) throw new Error('replaceNames: unterminated hint');
  return out;
}

/**
 * One workspace's view of the loader's SQL: every loader object name → the prefixed name.
 * Texts are cached: the same few statements are sent again and again.
 */
export class WorkspaceSql {
  readonly names: ReadonlyMap<string, string>;
  private readonly cache = new Map<string, string>();

  constructor(readonly prefix: string) {
    this.names = new Map([...loaderObjectNames()].map((name) => [name, workspaceObjectName(prefix, name)]));
    const seen = new Map<string, string>();
    for (const [name, full] of this.names) {
      const other = seen.get(full);
      if (other !== undefined) throw new Error(`bench workspace: ${name} and ${other} would both be ${full}`);
      seen.set(full, name);
    }
  }

  /** `sql` pointed at this workspace. */
  rewrite(sql: string): string {
    let text = this.cache.get(sql);
    if (text === undefined) {
      text = replaceNames(sql, this.names);
      this.cache.set(sql, text);
    }
    return text;
  }
}
