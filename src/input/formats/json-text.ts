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
  return new JsonParser(text).document();
}

/** The parser's position in one text: each method reads one piece of JSON's grammar at `i`. */
class JsonParser {
  private i = 0;
  constructor(private readonly text: string) {}

  document(): JsonValue {
    const result = this.value(0);
    this.space();
    if (this.i < this.text.length) this.fail('the end of the line');
    return result;
  }

  private fail(what: string): never {
    const { text, i } = this;
    const found = i >= text.length ? 'the end of the line' : JSON.stringify(text.slice(i, i + 12));
    throw new JsonSyntaxError(`not JSON: ${what} expected at character ${i + 1}, found ${found}`, i);
  }

  private space(): void {
    WHITESPACE.lastIndex = this.i;
    WHITESPACE.test(this.text);
    this.i = WHITESPACE.lastIndex;
  }

  private string(): string {
    const text = this.text;
    const start = this.i;
    let escaped = false;
    for (this.i++; this.i < text.length; this.i++) {
      const c = text.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        const quoted = text.slice(start, this.i);
        if (!escaped) return quoted.slice(1, -1);
        try {
          return JSON.parse(quoted) as string;
        } catch {
          this.i = start;
          return this.fail('a valid string escape');
        }
      }
      if (c === 0x5c) {
        escaped = true;
        this.i++;
      } else if (c < 0x20) return this.fail('a string without control characters');
    }
    this.i = start;
    return this.fail('a closed string');
  }

  private value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) this.fail(`at most ${MAX_DEPTH} levels of nesting`);
    this.space();
    const c = this.text[this.i];
    if (c === '"') return this.string();
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const)
      if (this.text.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    NUMBER.lastIndex = this.i;
    if (NUMBER.test(this.text)) {
      const n = new JsonNumber(this.text.slice(this.i, NUMBER.lastIndex));
      this.i = NUMBER.lastIndex;
      return n;
    }
    return this.fail('a value');
  }

  /** An object, `i` at its `{`. */
  private object(depth: number): Map<string, JsonValue> {
    this.i++;
    const out = new Map<string, JsonValue>();
    this.space();
    if (this.text[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.space();
      if (this.text[this.i] !== '"') this.fail('a property name in double quotes');
      const key = this.string();
      this.space();
      if (this.text[this.i] !== ':') this.fail('":"');
      this.i++;
      out.set(key, this.value(depth + 1));
      this.space();
      if (this.text[this.i] === ',') this.i++;
      else if (this.text[this.i] === '}') {
        this.i++;
        return out;
      } else this.fail('"," or "}"');
    }
  }

  /** An array, `i` at its `[`. */
  private array(depth: number): JsonValue[] {
    this.i++;
    const out: JsonValue[] = [];
    this.space();
    if (this.text[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.space();
      if (this.text[this.i] === ',') this.i++;
      else if (this.text[this.i] === ']') {
        this.i++;
        return out;
      } else this.fail('"," or "]"');
    }
  }
}

/** JSON text of a value, numbers as they were written (an attribute holding a nested value). */
export function jsonText(value: JsonValue): string {
  if (value instanceof JsonNumber) return value.text;
  if (value instanceof Map) return `{${[...value].map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  return JSON.stringify(value);
}
