/**
 * `bench --profile` for a fixed-width profile: each written field at its positions, in bytes or
 * characters, padded with blanks (amounts to the right); the key and the customer in the digits
 * their fields hold. Refuses a field too narrow for the largest value written, naming its key.
 */
import { charLength, ORDER_COLUMNS, type OrderColumn } from '../input/order-record.js';
import { isAsciiText, keptValue, SAMPLE_ORDER, type FileShape, type ShapeContext } from './shape-context.js';
import type { SyntheticOrder } from './synthetic-orders.js';

/** The largest amounts generated: a normal one, and one that overflows orders.amount (synthetic-orders.ts). */
const LARGEST_AMOUNT = '100000.00';
const LARGEST_OVERFLOW = '999999999999.99';
/** customer_id 1 … 500000. */
const CUSTOMER_DIGITS = 6;

type Value = (o: SyntheticOrder) => string;
type Field = { start: number; length: number; value: Value; right: boolean };
type Width = (text: string, key: string) => number;

/** The key and the customer in the digits their fields hold (noted where fewer than generated). */
function keyAndCustomer(ctx: ShapeContext): { keyOf: Value; customerOf: Value; customerDigits: number } {
  const at = (c: OrderColumn): [number, number] | undefined => ctx.spec.columns[c].at;
  const { rows, refuse, base } = ctx;
  const keyLength = at('source_key')?.[1] ?? 0;
  const keyOf =
    keyLength >= 13
      ? (o: SyntheticOrder) => `SRC-${String(o.n).padStart(9, '0')}`
      : String(rows).length <= keyLength
        ? (o: SyntheticOrder) => String(o.n).padStart(keyLength, '0')
        : refuse('columns.source_key.at', `${keyLength} positions cannot hold ${rows} distinct keys`);
  if (keyLength < 13) base.notes.push(`source_key: the order number in ${keyLength} digits`);
  // a customer field narrower than the generator's numbers (1 … 500000): the customers in its digits
  const customerDigits = at('customer_id')?.[1] ?? CUSTOMER_DIGITS;
  const customers = 10 ** Math.min(CUSTOMER_DIGITS, customerDigits) - 1;
  const customerOf = (o: SyntheticOrder) =>
    customerDigits >= CUSTOMER_DIGITS ? o.customerId : String(1 + ((Number(o.customerId) - 1) % customers));
  if (customerDigits < CUSTOMER_DIGITS) base.notes.push(`customer_id: 1 … ${customers} (${customerDigits} positions)`);
  return { keyOf, customerOf, customerDigits };
}

/**
 * The fields at their positions, each checked against the largest value written in it; whether
 * the amounts that overflow orders.amount fit. The `when` field last, then all by position.
 */
function placedFields(ctx: ShapeContext, width: Width): { fields: Field[]; overflow: boolean } {
  const { spec, rows, refuse, writeDate, writeAmount, currencyOf, codes } = ctx;
  const { keyOf, customerOf, customerDigits } = keyAndCustomer(ctx);
  const values: Record<OrderColumn, Value> = {
    source_key: keyOf,
    customer_id: customerOf,
    order_date: (o) => writeDate(o),
    amount: (o) => writeAmount(o.amount, currencyOf(o)),
    currency: (o) => currencyOf(o),
  };
  const blank: SyntheticOrder = { n: rows, customerId: '', orderDate: '', amount: '', currency: '' };
  const largest: Record<OrderColumn, string> = {
    source_key: keyOf(blank),
    customer_id: '9'.repeat(Math.min(CUSTOMER_DIGITS, customerDigits)),
    order_date: writeDate({ ...blank, n: 11, orderDate: '2025-12-28' }),
    amount: codes
      .map((code) => writeAmount(LARGEST_AMOUNT, code))
      .reduce((a, b) => (width(b, 'columns.amount') > width(a, 'columns.amount') ? b : a)),
    currency: 'JPY',
  };
  const fields: Field[] = [];
  let overflow = true;
  for (const c of ORDER_COLUMNS) {
    const a = spec.columns[c].at;
    if (a === undefined) continue;
    if (spec.columns[c].trim === false)
      refuse(`columns.${c}.trim`, 'bench pads fixed-width fields with blanks, which trim: false would keep');
    const need = width(largest[c], `columns.${c}`);
    if (need > a[1]) refuse(`columns.${c}.at`, `${a[1]} positions cannot hold ${JSON.stringify(largest[c])} (${need})`);
    if (c === 'amount' && codes.some((code) => width(writeAmount(LARGEST_OVERFLOW, code), 'columns.amount') > a[1])) {
      overflow = false;
      ctx.base.notes.push(`amount: ${a[1]} positions cannot hold an amount too large for orders.amount`);
    }
    fields.push({ start: a[0] - 1, length: a[1], value: values[c], right: c === 'amount' });
  }
  const when = spec.when;
  if (when?.at !== undefined) {
    const kept = keptValue(when);
    const need = width(kept, 'when');
    if (need > when.at[1]) refuse('when.at', `${when.at[1]} positions cannot hold ${JSON.stringify(kept)}, the value when keeps`);
    fields.push({ start: when.at[0] - 1, length: when.at[1], value: () => kept, right: false });
  }
  fields.sort((a, b) => a.start - b.start);
  if (fields.some((f, i) => i > 0 && f.start < (fields[i - 1]?.start ?? 0) + (fields[i - 1]?.length ?? 0)))
    refuse('when.at', 'overlaps a column: bench cannot write one value for both');
  return { fields, overflow };
}

/** The shape of a fixed-width profile's file. */
export function fixedShape(ctx: ShapeContext): FileShape {
  const bytes = ctx.spec.units !== 'chars';
  const width: Width = (text, key) => (isAsciiText(text) ? text.length : bytes ? ctx.encoded(text, key).length : charLength(text));
  const { fields, overflow } = placedFields(ctx, width);
  const pad = (text: string, length: number, right: boolean): string => {
    const blanks = ' '.repeat(Math.max(0, length - width(text, 'columns')));
    return right ? blanks + text : text + blanks;
  };
  const line = (o: SyntheticOrder): string => {
    let out = '';
    let position = 0;
    for (const f of fields) {
      out += ' '.repeat(f.start - position) + pad(f.value(o), f.length, f.right);
      position = f.start + f.length;
    }
    return out;
  };
  ctx.checkComment(line(SAMPLE_ORDER), 'each line');
  return { ...ctx.base, line, overflow };
}
