import type { OraConnection } from './oracledb-types.js';
import { type OracleKit, queryRows, text } from './rows.js';
import { MAX_BYTES } from './binds.js';

/**
 * What a migration statement creates, and whether the schema holds it. migrate() uses it twice
 * (migrations.ts): when a statement fails with an "already exists" error, to accept that only
 * if the object there is ours; and after a migration's last statement, to check that every
 * table, column, index and named constraint it creates is there before it is recorded.
 *
 * The statements understood are the ones our migrations are written with: CREATE [GLOBAL
 * TEMPORARY] TABLE t (...), CREATE [UNIQUE|BITMAP] INDEX i ON t, ALTER TABLE t ADD column /
 * ADD (columns) / ADD CONSTRAINT c. Others create nothing this check knows of.
 */

export type SchemaObjectKind = 'TABLE' | 'COLUMN' | 'INDEX' | 'CONSTRAINT';

export interface SchemaObject {
  kind: SchemaObjectKind;
  /** The table it belongs to (a table: itself), as the dictionary spells it. */
  table: string;
  name: string;
  /** A table: whether it is a global temporary table (user_tables.temporary). */
  temporary?: boolean;
  /**
   * An index: its columns in order, as the dictionary spells them; an expression (a
   * function-based index, or a DESC column, which Oracle stores as one) is EXPRESSION.
   */
  columns?: string[];
}

/** How schema_objects.sql spells an index column that is an expression. */
export const EXPRESSION = '(expression)';

const IDENTIFIER = String.raw`("[^"]+"|[A-Za-z][A-Za-z0-9_$#]*)`;
const CREATE_TABLE = new RegExp(String.raw`^CREATE\s+(GLOBAL\s+TEMPORARY\s+)?TABLE\s+${IDENTIFIER}\s*\(`, 'i');
const CREATE_INDEX = new RegExp(String.raw`^CREATE\s+(?:UNIQUE\s+|BITMAP\s+)?INDEX\s+${IDENTIFIER}\s+ON\s+${IDENTIFIER}`, 'i');
const ALTER_ADD = new RegExp(String.raw`^ALTER\s+TABLE\s+${IDENTIFIER}\s+ADD\s+`, 'i');

/** A name as the data dictionary stores it: quoted as written, unquoted in upper case. */
export function dictionaryName(identifier: string): string {
  return identifier.startsWith('"') ? identifier.slice(1, -1) : identifier.toUpperCase();
}

/** The text between the parenthesis at `open` and its match, and the index after the match. */
function parenthesised(sql: string, open: number): { body: string; end: number } {
  let depth = 0;
  for (let i = open; i < sql.length; i++) {
    const ch = sql[i];
    if (ch === "'" || ch === '"') {
      const close = sql.indexOf(ch, i + 1);
      i = close < 0 ? sql.length : close;
    } else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return { body: sql.slice(open + 1, i), end: i + 1 };
  }
  return { body: sql.slice(open + 1), end: sql.length };
}

/** The items of a column/constraint list, split at top-level commas. */
function items(body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === "'" || ch === '"') {
      const close = body.indexOf(ch, i + 1);
      i = close < 0 ? body.length : close;
    } else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(body.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(body.slice(start).trim());
  return out.filter((item) => item !== '');
}

/** Columns and named constraints of a list of column / constraint definitions. */
function definitions(table: string, list: readonly string[]): SchemaObject[] {
  const out: SchemaObject[] = [];
  for (const item of list) {
    const constraint = new RegExp(String.raw`^CONSTRAINT\s+${IDENTIFIER}`, 'i').exec(item);
    if (constraint?.[1] !== undefined) out.push({ kind: 'CONSTRAINT', table, name: dictionaryName(constraint[1]) });
    else if (/^(PRIMARY|UNIQUE|CHECK|FOREIGN)\b/i.test(item))
      continue; // unnamed: nothing to look up
    else {
      const column = new RegExp(`^${IDENTIFIER}`).exec(item);
      if (column?.[1] !== undefined) out.push({ kind: 'COLUMN', table, name: dictionaryName(column[1]) });
    }
  }
  return out;
}

/** The objects one statement creates (empty when it is not one of the forms understood). */
export function objectsCreatedBy(statement: string): SchemaObject[] {
  const sql = statement.trim();
  const table = CREATE_TABLE.exec(sql);
  if (table?.[2] !== undefined) {
    const name = dictionaryName(table[2]);
    const { body } = parenthesised(sql, table[0].length - 1);
    return [{ kind: 'TABLE', table: name, name, temporary: table[1] !== undefined }, ...definitions(name, items(body))];
  }
  const index = CREATE_INDEX.exec(sql);
  if (index?.[1] !== undefined && index[2] !== undefined) {
    const rest = sql.slice(index[0].length).trimStart();
    const list = rest.startsWith('(') ? items(parenthesised(rest, 0).body) : [];
    const columns = list.map((item) => {
      const plain = new RegExp(String.raw`^${IDENTIFIER}(?:\s+ASC)?$`, 'i').exec(item);
      return plain?.[1] === undefined ? EXPRESSION : dictionaryName(plain[1]);
    });
    return [{ kind: 'INDEX', table: dictionaryName(index[2]), name: dictionaryName(index[1]), columns }];
  }
  const alter = ALTER_ADD.exec(sql);
  if (alter?.[1] !== undefined) {
    const name = dictionaryName(alter[1]);
    const rest = sql.slice(alter[0].length);
    const list = rest.startsWith('(') ? items(parenthesised(rest, 0).body) : [rest];
    return definitions(name, list);
  }
  return [];
}

/** "table ORDERS", "temporary table X", "column ORDERS.AMOUNT", "index IX_X on ORDERS (A, B)", "constraint PK_ORDERS on ORDERS". */
export function describeObject(o: SchemaObject): string {
  if (o.kind === 'TABLE') return `${o.temporary === true ? 'temporary ' : ''}table ${o.name}`;
  if (o.kind === 'COLUMN') return `column ${o.table}.${o.name}`;
  const columns = o.columns === undefined ? '' : ` (${o.columns.join(', ')})`;
  return `${o.kind.toLowerCase()} ${o.name} on ${o.table}${columns}`;
}

/**
 * What must match in the dictionary (schema_objects.sql's DETAIL): a table's kind, temporary
 * or permanent ('Y' / 'N'); an index's columns in order; nothing more for the others.
 */
export function objectDetail(o: SchemaObject): string {
  if (o.kind === 'TABLE') return o.temporary === true ? 'Y' : 'N';
  if (o.kind === 'INDEX') return (o.columns ?? []).join(',');
  return '';
}

/**
 * The objects of the list that the schema does not hold as written, in the list's order: a
 * permanent table named like a temporary one of ours (or the other way round), or an index of
 * that name on other columns, is missing.
 */
export async function missingObjects(connection: OraConnection, kit: OracleKit, objects: readonly SchemaObject[]): Promise<SchemaObject[]> {
  const present = new Map<string, Set<string>>();
  for (const table of new Set(objects.map((o) => o.table))) {
    const rows = await queryRows(connection, kit, 'schema_objects', { table_name: kit.binds.str(table, MAX_BYTES.identifier) });
    present.set(table, new Set(rows.map((r) => `${text(r.KIND) ?? ''}:${text(r.NAME) ?? ''}:${text(r.DETAIL) ?? ''}`)));
  }
  return objects.filter((o) => present.get(o.table)?.has(`${o.kind}:${o.name}:${objectDetail(o)}`) !== true);
}
