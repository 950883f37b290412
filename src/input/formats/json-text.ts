/**
 * JSON text read with every number kept as written. JSON.parse turns a number into a binary
 * float (`0.1` is then 0.1000000000000000055…, a 20-digit id loses its last digits), and Node 20
 * has no reviver `context.source` to get the text back; so a line is read here by a small
 * recursive-descent parser: numbers are their source text (checked against JSON's grammar),
 * strings are decoded by JSON.parse of their own quoted text (exact and fast), objects are Maps
 * (a key `__proto__` is a key like any other). Nesting is bounded so a hostile line cannot
 * exhaust the stack.
 */

/** A JSON number as written in the source. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export type JsonValue = string | JsonNumber | boolean | null | JsonValue[] | Map<string, JsonValue>;

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    /** The 0-based character position where the text stops being JSON. */
    readonly at: number,
  ) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

const MAX_DEPTH = 256;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;

/** Parse one JSON text (a whole line), numbers kept as written. Throws JsonSyntaxError. */
export function parseJsonText(text: string): JsonValue {
  let i = 0;
  const fail = (what: string): never => {
    const found = i >= text.length ? 'the end of the line' : JSON.stringify(text.slice(i, i + 12));
    throw new JsonSyntaxError(`not JSON: ${what} expected at character ${i + 1}, found ${found}`, i);
  };
  const space = (): void => {
    WHITESPACE.lastIndex = i;
    WHITESPACE.test(text);
    i = WHITESPACE.lastIndex;
  };
  const string = (): string => {
    const start = i;
    let escaped = false;
    for (i++; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        const quoted = text.slice(start, i);
        if (!escaped) return quoted.slice(1, -1);
        try {
          return JSON.parse(quoted) as string;
        } catch {
          i = start;
          return fail('a valid string escape');
        }
      }
      if (c === 0x5c) {
        escaped = true;
        i++;
      } else if (c < 0x20) return fail('a string without control characters');
    }
    i = start;
    return fail('a closed string');
  };
  const value = (depth: number): JsonValue => {
    if (depth > MAX_DEPTH) fail(`at most ${MAX_DEPTH} levels of nesting`);
    space();
    const c = text[i];
    if (c === '"') return string();
    if (c === '{') {
      i++;
      const out = new Map<string, JsonValue>();
      space();
      if (text[i] === '}') {
        i++;
        return out;
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail('a property name in double quotes');
        const key = string();
        space();
        if (text[i] !== ':') fail('":"');
        i++;
        out.set(key, value(depth + 1));
        space();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return out;
        } else fail('"," or "}"');
      }
    }
    if (c === '[') {
      i++;
      const out: JsonValue[] = [];
      space();
      if (text[i] === ']') {
        i++;
        return out;
      }
      for (;;) {
        out.push(value(depth + 1));
        space();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return out;
        } else fail('"," or "]"');
      }
    }
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const)
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    NUMBER.lastIndex = i;
    if (NUMBER.test(text)) {
      const n = new JsonNumber(text.slice(i, NUMBER.lastIndex));
      i = NUMBER.lastIndex;
      return n;
    }
    return fail('a value');
  };
  const result = value(0);
  space();
  if (i < text.length) fail('the end of the line');
  return result;
}

/** JSON text of a value, numbers as they were written (an attribute holding a nested value). */
export function jsonText(value: JsonValue): string {
  if (value instanceof JsonNumber) return value.text;
  if (value instanceof Map) return `{${[...value].map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  return JSON.stringify(value);
}
