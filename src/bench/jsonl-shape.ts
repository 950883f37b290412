/**
 * The synthetic file of `bench --profile` for a JSON Lines profile: one object per order, each
 * written field at its path (`customer.id`, `lines[0].sku`), every value a JSON string (a string
 * is read as it is, so the amount keeps the profile's decimal and group marks; an empty one is
 * missing, as an empty CSV field).
 */
import { parseJsonPath, type JsonPath } from '../input/formats/json-path.js';
import type { SyntheticOrder } from './synthetic-orders.js';

type Refuse = (key: string, why: string) => never;
type Nested = { [key: string]: Nested | string } | Array<Nested | string>;

/** One value to write: the profile key it is for, its path and how it is written for an order. */
export interface JsonSlot {
  key: string;
  column: string | number | string[] | undefined;
  value: (o: SyntheticOrder) => string;
}

/** The object of one order, its values at their paths. */
function place(root: Nested, path: JsonPath, value: string, key: string, refuse: Refuse): void {
  let at: Nested = root;
  path.forEach((step, i) => {
    const last = i === path.length - 1;
    const next = path[i + 1];
    const holder = at as Record<string | number, Nested | string | undefined>;
    if ((typeof step === 'number') !== Array.isArray(at))
      refuse(`${key}.column`, 'its path goes through a value another path makes an object or array');
    if (last) {
      if (holder[step] !== undefined) refuse(`${key}.column`, 'another field has the same path: bench writes one value per path');
      holder[step] = value;
      return;
    }
    holder[step] ??= typeof next === 'number' ? [] : {};
    const inner = holder[step];
    if (typeof inner === 'string') refuse(`${key}.column`, "its path goes through another field's value");
    at = inner;
  });
}

/** The line of an order: its object as JSON text (an array's unwritten items null). */
export function jsonLineWriter(slots: JsonSlot[], refuse: Refuse): (o: SyntheticOrder) => string {
  const paths = slots.map((s) => {
    if (typeof s.column !== 'string') return refuse(`${s.key}.column`, 'a JSON Lines field is named by a path into the object');
    const path = parseJsonPath(s.column);
    return 'problem' in path ? refuse(`${s.key}.column`, path.problem) : path;
  });
  const line = (o: SyntheticOrder): string => {
    const root: Nested = {};
    slots.forEach((s, i) => place(root, paths[i] ?? [], s.value(o), s.key, refuse));
    return JSON.stringify(root);
  };
  line({ n: 1, customerId: '1', orderDate: '2020-01-01', amount: '1.00', currency: 'JPY' }); // refuses paths that clash
  return line;
}
