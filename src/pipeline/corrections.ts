/** An operator's `--set` corrections: parsed with a file's rules, and the audit's before/after of a change. */
import type { OrderValues, StageRowSnapshot } from '../engine/types.js';
import { UserError } from '../errors.js';
import { orderRecordSchema, validateOrder } from '../input/order-record.js';

/** Fields an operator may correct with --set (source_key is the business key: never). */
export const CORRECTABLE_FIELDS = ['customer_id', 'order_date', 'amount', 'currency'] as const;
export type CorrectableField = (typeof CORRECTABLE_FIELDS)[number];

export const FIELD_TO_VALUE: Record<CorrectableField, keyof OrderValues> = {
  customer_id: 'customerId',
  order_date: 'orderDate',
  amount: 'amount',
  currency: 'currency',
};

/** `--set attributes.NAME=value`: one of the row's attributes (a profile's `extra` columns); an empty value removes it. */
export const ATTRIBUTE_PREFIX = 'attributes.';

/** An operator's corrections: some of the four fields, and some attributes by name ('' removes one). */
export type Corrections = Partial<OrderValues> & { attributes?: Record<string, string> };

/**
 * Parse `--set field=value` corrections with the same rules as a file's values: the PARSE
 * rules (can it be stored) and the business rules of that field (would it pass validation).
 * `attributes.NAME=value` corrects an attribute (its name as the file's header has it): text,
 * trimmed as a file's are.
 */
export function parseCorrections(assignments: string[]): Corrections {
  const corrections: Corrections = {};
  for (const assignment of assignments) {
    const eq = assignment.indexOf('=');
    const field = (eq === -1 ? assignment : assignment.slice(0, eq)).trim().toLowerCase();
    if (eq === -1) throw new UserError(`--set ${assignment}: expected field=value`);
    if (field.startsWith(ATTRIBUTE_PREFIX)) {
      const name = assignment.slice(0, eq).trim().slice(ATTRIBUTE_PREFIX.length);
      if (name === '') throw new UserError(`--set ${assignment.slice(0, eq)}: name the attribute (attributes.NAME=value)`);
      corrections.attributes = { ...corrections.attributes, [name]: assignment.slice(eq + 1).trim() };
      continue;
    }
    if (!(CORRECTABLE_FIELDS as readonly string[]).includes(field)) {
      throw new UserError(`--set ${field}: only ${CORRECTABLE_FIELDS.join(', ')} and ${ATTRIBUTE_PREFIX}NAME can be corrected`);
    }
    const name = field as CorrectableField;
    const parsed = orderRecordSchema.shape[name].safeParse(assignment.slice(eq + 1));
    if (!parsed.success) throw new UserError(`--set ${name}: ${parsed.error.issues[0]?.message ?? 'invalid value'}`);
    corrections[FIELD_TO_VALUE[name]] = parsed.data;
  }
  // the business rule of each corrected field, checked on its own
  const { attributes: _attributes, ...fields } = corrections;
  const probe: OrderValues = { customerId: '1', orderDate: '2000-01-01', amount: '0', currency: 'AAA', ...fields };
  const problem = validateOrder(probe);
  if (problem !== null) throw new UserError(`--set: ${problem.message}`);
  return corrections;
}

/** The four correctable values of a row as it is now. */
export function valuesOf(row: StageRowSnapshot): OrderValues {
  return { customerId: row.customerId, orderDate: row.orderDate, amount: row.amount, currency: row.currency };
}

/** An attribute change: the row's attributes before and after (null: none). */
export interface AttributeChange {
  before: Record<string, string> | null;
  after: Record<string, string> | null;
}

/** JSON of the fields that differ, before and after (the status included; changed attributes under `attributes`, a removed one null). */
export function diff(
  row: StageRowSnapshot,
  values: OrderValues,
  newStatus: string,
  attributes?: AttributeChange,
): { oldValues: string; newValues: string } {
  const before: Record<string, unknown> = { process_status: row.status };
  const after: Record<string, unknown> = { process_status: newStatus };
  for (const [field, key] of Object.entries(FIELD_TO_VALUE)) {
    if (row[key] !== values[key]) {
      before[field] = row[key];
      after[field] = values[key];
    }
  }
  if (attributes !== undefined) {
    const was: Record<string, string | null> = {};
    const now: Record<string, string | null> = {};
    for (const name of new Set([...Object.keys(attributes.before ?? {}), ...Object.keys(attributes.after ?? {})])) {
      const a = attributes.before?.[name] ?? null;
      const b = attributes.after?.[name] ?? null;
      if (a === b) continue;
      was[name] = a;
      now[name] = b;
    }
    if (Object.keys(was).length > 0) {
      before.attributes = was;
      after.attributes = now;
    }
  }
  return { oldValues: JSON.stringify(before), newValues: JSON.stringify(after) };
}
