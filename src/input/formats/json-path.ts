/**
 * Paths into a JSON object, as a JSON Lines profile names its fields: property names joined by
 * dots, array elements by a 0-based index in brackets, a name holding a dot, a bracket or a
 * blank in brackets as a JSON string: `customer.id`, `lines[0].sku`, `["order.no"]`,
 * `meta["unit price"]`.
 */
import type { JsonValue } from './json-text.js';

export type JsonPath = ReadonlyArray<string | number>;

/** The steps of a path, or a message saying why it is not one. */
export function parseJsonPath(text: string): JsonPath | { problem: string } {
  const steps: Array<string | number> = [];
  let i = 0;
  const bad = (why: string) => ({ problem: `not a JSON path (${why} at character ${i + 1}): write names joined by dots, indexes as [0]` });
  while (i < text.length) {
    if (text[i] === '[') {
      const close = text[i + 1] === '"' ? quotedEnd(text, i + 1) : text.indexOf(']', i);
      if (close < 0 || text[close] !== ']') return bad('an unclosed [');
      if (text[i + 1] === '"') {
        let name: unknown;
        try {
          name = JSON.parse(text.slice(i + 1, close));
        } catch {
          return bad('a bad quoted name');
        }
        steps.push(name as string);
      } else {
        const index = text.slice(i + 1, close);
        if (!/^(?:0|[1-9][0-9]{0,8})$/.test(index)) return bad('an index that is not a whole number');
        steps.push(Number(index));
      }
      i = close + 1;
      if (text[i] === '.') {
        i++;
        if (i >= text.length || text[i] === '[' || text[i] === '.') return bad('a name missing after "."');
      }
      continue;
    }
    let end = i;
    while (end < text.length && text[end] !== '.' && text[end] !== '[') end++;
    if (end === i) return bad('an empty name');
    steps.push(text.slice(i, end));
    i = end;
    if (text[i] === '.') {
      i++;
      if (i >= text.length) return bad('a name missing after "."');
    }
  }
  if (steps.length === 0) return bad('an empty path');
  return steps;
}

/** The index just past a JSON string starting at `start` (its closing quote + 1), or -1. */
function quotedEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return -1;
}

/** The value at a path, or undefined when the object has no such path. */
export function valueAt(root: JsonValue, path: JsonPath): JsonValue | undefined {
  let v: JsonValue | undefined = root;
  for (const step of path) {
    if (typeof step === 'number') v = Array.isArray(v) ? v[step] : undefined;
    else v = v instanceof Map ? v.get(step) : undefined;
    if (v === undefined) return undefined;
  }
  return v;
}
