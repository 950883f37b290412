/**
 * Where an xlsx profile's columns are in a sheet: a header name (matched as a CSV profile's are:
 * case, blanks and full-width ignored), a column letter (A, B, …, XFD) or a 1-based number. A
 * name is looked for in the header first; a reference the header does not have that is a column
 * letter takes that column, so `column: B` reads column B of a sheet with or without a header.
 */
import { UserError } from '../../errors.js';
import { ORDER_COLUMNS, type OrderColumn } from '../order-record.js';
import { attributeColumns, positionalAttributes, type AttributeColumns } from '../profile/attributes.js';
import type { LoadProfile } from '../profile/load-profile.js';
import { headerKey } from '../profile/mapping.js';
import { columnLetters, columnNumber } from './xlsx-cells.js';

export interface SheetColumns {
  /** The 0-based cell index of each of the five fields (-1: a const field). */
  indexes: Record<OrderColumn, number>;
  /** The cell index `when` tests, or -1. */
  when: number;
  /** The header name each field was found under (for messages). */
  found: Partial<Record<OrderColumn, string>>;
  /** The cells kept as attributes (by row length without a header), or null (`extra: ignore`). */
  attributes: AttributeColumns | ((length: number) => AttributeColumns) | null;
  /** Header cells no field, `when` or attribute reads (said once as ignored). */
  unused: string[];
}

type Ref = string | number | string[] | undefined;

/** The 0-based index of a column reference in a header row (names: empty without a header), or -1 for none. */
export function sheetColumnIndex(names: readonly string[], ref: Ref): number {
  if (ref === undefined) return -1;
  if (typeof ref === 'number') return ref - 1;
  const keys = names.map(headerKey);
  for (const name of typeof ref === 'string' ? [ref] : ref) {
    const i = keys.indexOf(headerKey(name));
    if (i >= 0) return i;
  }
  for (const name of typeof ref === 'string' ? [ref] : ref) {
    const n = columnNumber(name.trim());
    if (n !== null) return n - 1;
  }
  return -1;
}

/** The profile's columns in a sheet whose header row is `names` (empty: `header: false`). A column not found refuses the file. */
export function sheetColumns(names: readonly string[], where: string, profile: LoadProfile): SheetColumns {
  const keys = names.map(headerKey);
  const locate = (ref: Ref, what: string): number => {
    if (ref === undefined) return -1;
    const i = sheetColumnIndex(names, ref);
    if (i >= 0 && typeof ref !== 'number') {
      // two header cells of that name: which one is meant cannot be told (CSV profiles refuse it too)
      const again = keys.indexOf(keys[i] ?? '', i + 1);
      if (
        keys[i] !== undefined &&
        keys[i] !== '' &&
        again >= 0 &&
        (typeof ref === 'string' ? [ref] : ref).some((r) => headerKey(r) === keys[i])
      )
        throw new UserError(
          `profile ${profile.name}: ${what}: ${JSON.stringify(names[i])} names columns ${columnLetters(i + 1)} and ${columnLetters(again + 1)} of ${where}: which one is meant cannot be told`,
        );
    }
    if (i >= 0) return i;
    const wanted = (typeof ref === 'string' ? [ref] : typeof ref === 'number' ? [String(ref)] : ref).map((r) => JSON.stringify(r));
    const shown = names.map((n, k) => `${columnLetters(k + 1)} ${JSON.stringify(n)}`).join(', ');
    throw new UserError(
      `profile ${profile.name}: ${what}: column ${wanted.join(' or ')} is not in the header of ${where} (${shown === '' ? 'an empty row' : shown}); name a header cell or a column letter`,
    );
  };
  const indexes = {} as Record<OrderColumn, number>;
  const found: Partial<Record<OrderColumn, string>> = {};
  const mapped = new Set<number>();
  for (const c of ORDER_COLUMNS) {
    const spec = profile.spec.columns[c];
    const i = spec.const !== undefined ? -1 : locate(spec.column, `columns.${c}.column`);
    indexes[c] = i;
    if (i < 0) continue;
    mapped.add(i);
    found[c] = names[i] !== undefined && names[i] !== '' ? names[i] : columnLetters(i + 1);
  }
  const when = locate(profile.spec.when?.column, 'when.column');
  const extra = profile.spec.extra;
  let attributes: SheetColumns['attributes'] = null;
  if (extra !== 'ignore')
    attributes =
      names.length === 0 && extra === 'keep'
        ? positionalAttributes(mapped)
        : attributeColumns(names, mapped, extra, headerKey, `profile ${profile.name}: ${where}`);
  const used = new Set([...mapped, when]);
  if (attributes !== null && typeof attributes !== 'function') for (const i of attributes.indexes) used.add(i);
  const unused = profile.quietExtra === true ? [] : names.filter((n, i) => n !== '' && !used.has(i));
  return { indexes, when, found, attributes, unused };
}
