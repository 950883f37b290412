/**
 * The header of a delimited file: the built-in format's (the five columns by name, in any order;
 * an `errors` export read back) or a profile's columns found in it.
 */
import { UserError } from '../../errors.js';
import { isErrorExportHeader } from '../formula-guard.js';
import type { OrderFileHeader } from '../order-file.js';
import { ORDER_COLUMNS, type OrderColumn } from '../order-record.js';
import { attributeColumns, positionalAttributes, RESERVED_ATTRIBUTE_NAMES, type AttributeColumns } from '../profile/attributes.js';
import type { LoadProfile } from '../profile/load-profile.js';
import { compileMapping, describeSource, headerKey } from '../profile/mapping.js';

export function describeHeader(names: string[], path: string): OrderFileHeader {
  const positions = new Map<OrderColumn, number>();
  const extraColumns: string[] = [];
  names.forEach((raw, index) => {
    const name = raw.trim().toLowerCase();
    if ((ORDER_COLUMNS as readonly string[]).includes(name)) {
      if (positions.has(name as OrderColumn)) throw new UserError(`${path}: line 1: column "${name}" appears twice in the header`);
      positions.set(name as OrderColumn, index);
    } else {
      extraColumns.push(raw.trim());
    }
  });
  const missing = ORDER_COLUMNS.filter((c) => !positions.has(c));
  if (missing.length > 0) {
    throw new UserError(
      `${path}: line 1: missing required column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (header must name ${ORDER_COLUMNS.join(',')}, in any order)`,
    );
  }
  const errorExport = isErrorExportHeader(names);
  const header: OrderFileHeader = { names: names.map((n) => n.trim()), errorExport, positions, extraColumns, columnCount: names.length };
  if (!errorExport) return header;
  // Our own export read back: its columns past the export's own are the attributes of the rows
  // it was written from (one column each, src/cli/errors-csv.ts), kept again.
  const reserved = new Set<number>();
  names.forEach((n, i) => {
    if (RESERVED_ATTRIBUTE_NAMES.includes(n.trim().toLowerCase())) reserved.add(i);
  });
  if (reserved.size === names.length) return header;
  const attributes = attributeColumns(names, reserved, 'keep', (n) => n.trim(), path);
  const kept = new Set(attributes.indexes);
  return { ...header, extraColumns: header.names.filter((_, i) => !positionsHas(positions, i) && !kept.has(i)), attributes };
}

function positionsHas(positions: Map<OrderColumn, number>, index: number): boolean {
  for (const i of positions.values()) if (i === index) return true;
  return false;
}

/** What reading a CSV file through a profile needs of its header. */
export interface ProfileColumns {
  header: OrderFileHeader;
  /** The record index of each of the five fields (-1: a const field). */
  indexes: Record<OrderColumn, number>;
  /** The same in ORDER_COLUMNS order (Mapping.recordFields). */
  order: number[];
  /** The record index `when` tests, or -1. */
  when: number;
  /** Fields a header-less record must have at least. */
  needed: number;
  mapping: ReturnType<typeof compileMapping>;
  /** The columns kept as attributes (by record length for a header-less file), or null (`extra: ignore`). */
  attributes: AttributeColumns | ((length: number) => AttributeColumns) | null;
}

/**
 * The columns a profile names, found in the header (names matched ignoring case, surrounding
 * blanks and full-width/half-width differences; a list of aliases: the first found) or by their
 * 1-based number. A column the header lacks refuses the file before anything is written.
 */
export function profileHeader(
  names: string[],
  path: string,
  profile: LoadProfile,
  headerLine: number,
  warn?: (message: string) => void,
): ProfileColumns {
  const keys = names.map(headerKey);
  const used = new Set<number>();
  const foundNames: Partial<Record<OrderColumn, string>> = {};
  const locate = (ref: string | number | string[] | undefined, what: string): number => {
    if (ref === undefined) return -1;
    if (typeof ref === 'number') {
      if (names.length > 0 && ref > names.length)
        throw new UserError(`profile ${profile.name}: ${what}: column ${ref}, but the header of ${path} has ${names.length} columns`);
      return ref - 1;
    }
    const wanted = typeof ref === 'string' ? [ref] : ref;
    for (const w of wanted) {
      const i = keys.indexOf(headerKey(w));
      const again = keys.indexOf(headerKey(w), i + 1);
      // two columns of that name: which one is meant cannot be told (the built-in format refuses it too)
      if (i >= 0 && again >= 0)
        throw new UserError(
          `profile ${profile.name}: ${what}: ${JSON.stringify(w)} names columns ${i + 1} and ${again + 1} of the header of ${path}: which one is meant cannot be told`,
        );
      if (i >= 0) return i;
    }
    const shown = names.map((n) => n.trim()).join(', ');
    throw new UserError(
      `profile ${profile.name}: ${what}: ${describeSource({ column: ref })} is not in the header of ${path}${headerLine > 0 ? ` (line ${headerLine}: ${shown})` : ''}`,
    );
  };
  const indexes = {} as Record<OrderColumn, number>;
  const positions = new Map<OrderColumn, number>();
  for (const c of ORDER_COLUMNS) {
    const spec = profile.spec.columns[c];
    const i = spec.const !== undefined ? -1 : locate(spec.column, `columns.${c}.column`);
    indexes[c] = i;
    if (i >= 0) {
      used.add(i);
      positions.set(c, i);
      if (names[i] !== undefined) foundNames[c] = names[i].trim();
    }
  }
  // the columns of the five fields: every other one may be kept (`when`'s too: it is data)
  const mapped = new Set(used);
  const when = locate(profile.spec.when?.column, 'when.column');
  if (when >= 0) used.add(when);
  const needed = Math.max(...Object.values(indexes), when) + 1;
  const extra = profile.spec.extra;
  let attributes: ProfileColumns['attributes'] = null;
  if (extra !== 'ignore') {
    attributes =
      names.length === 0 && extra === 'keep'
        ? positionalAttributes(mapped)
        : attributeColumns(names, mapped, extra, headerKey, `profile ${profile.name}: ${path}`);
  }
  const kept = attributes === null || typeof attributes === 'function' ? new Set<number>() : new Set(attributes.indexes);
  // `extra: ignore` written in the profile: the columns are left out on purpose, without a warning
  const extraColumns = profile.quietExtra === true ? [] : names.map((n) => n.trim()).filter((_, i) => !used.has(i) && !kept.has(i));
  return {
    header: {
      names: names.map((n) => n.trim()),
      errorExport: false,
      positions,
      extraColumns,
      columnCount: names.length,
      ...(attributes !== null && typeof attributes !== 'function' ? { attributes } : {}),
    },
    indexes,
    order: ORDER_COLUMNS.map((c) => indexes[c]),
    when,
    needed,
    mapping: compileMapping(profile, foundNames, warn === undefined ? undefined : (m) => warn(`${path}: ${m}`), path),
    attributes,
  };
}
