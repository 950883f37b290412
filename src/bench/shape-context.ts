/**
 * What the three writers of `bench --profile` (profile-shape.ts: CSV and JSON Lines;
 * fixed-shape.ts: fixed width) share: the shape they return, and what the profile fixes before any
 * of them runs (encoding, file name, currencies, dates, amounts, the refusal naming a key).
 */
import type { OrderColumn } from '../input/order-record.js';
import type { LoadProfile } from '../input/profile/load-profile.js';
import type { SyntheticOrder } from './synthetic-orders.js';

/** How the synthetic orders are written for a profile. */
export interface FileShape {
  /** The lines before the first order (banner lines, the header), each without its line end. */
  head: string[];
  /** One order's line, without its line end. */
  line: (order: SyntheticOrder) => string;
  /** The file's bytes of a text (the whole file is written through it; a byte order mark first for UTF-16). */
  encode: (text: string) => Buffer;
  /** The file starts with a byte order mark (UTF-16: how the reader knows it). */
  bom: boolean;
  /** Whether the amounts that overflow orders.amount can be written (a fixed-width field may be too narrow). */
  overflow: boolean;
  /** What the shape changes in the synthetic data, for the report. */
  notes: string[];
  /** The file's base name where the profile takes values from it (file_pattern), else null: any name. */
  fileName: string | null;
}

/** Refuses the profile, naming its key (a UserError). */
export type Refuse = (key: string, why: string) => never;

type Value = (o: SyntheticOrder) => string;

/** What a format's writer is given: the profile, and the values it writes as the profile reads them. */
export interface ShapeContext {
  spec: LoadProfile['spec'];
  rows: number;
  refuse: Refuse;
  /** `text` in the file's encoding, or refused naming `key`. */
  encoded: (text: string, key: string) => Buffer;
  writeDate: Value;
  writeAmount: (amount: string, currency?: string) => string;
  currencyOf: Value;
  /** The currencies written. */
  codes: string[];
  /** Each column's text as a delimited or JSON field. */
  textValues: Record<OrderColumn, Value>;
  /** Whether the file holds the column (not a const, a file-name group or the amount's sign). */
  written: (c: OrderColumn) => boolean;
  /** Refuses a line whose start the profile's `comment` would skip. */
  checkComment: (start: string, what: string) => void;
  /** The part of the shape every format returns alike (`head` grows with a header line). */
  base: Pick<FileShape, 'head' | 'encode' | 'bom' | 'notes' | 'fileName'>;
}

/** An order whose values are short and plain: a line's start, tested against `comment`. */
export const SAMPLE_ORDER: SyntheticOrder = { n: 1, customerId: '1', orderDate: '2020-01-01', amount: '1.00', currency: 'JPY' };

/** ASCII is the same bytes in every encoding a profile names but UTF-16. */
export function isAsciiText(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** A value that the profile's `when` keeps. */
export function keptValue(when: NonNullable<LoadProfile['spec']['when']>): string {
  if (when.equals !== undefined) return when.equals;
  if (when.in !== undefined) return when.in[0] ?? '';
  const refused = new Set(when.not_in ?? []);
  return ['D', 'K', 'X', '1', 'bench'].find((v) => !refused.has(v)) ?? `${[...refused].join('')}x`;
}

/**
 * Whether `when` keeps every value `value` writes (a trailer's TOTAL tested in the key column):
 * then it needs no column of its own.
 */
export function keepsAll(when: NonNullable<LoadProfile['spec']['when']>, value: Value, rows: number): boolean {
  const keeps = (v: string) =>
    when.equals !== undefined ? v === when.equals : when.in !== undefined ? when.in.includes(v) : !(when.not_in ?? []).includes(v);
  return [1, 2, 3, rows].every((n) => keeps(value({ ...SAMPLE_ORDER, n }).trim()));
}
