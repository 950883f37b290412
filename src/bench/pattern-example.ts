/**
 * `bench --profile` with a `file_pattern`: a file name the pattern takes, so that the profile
 * reads the values it takes from the name (orders_(?<currency>[A-Z]{3})_\d{8}\.csv →
 * orders_JPY_20261201.csv). Written from the pattern's common forms — literals and escapes,
 * \d \w \s and ., character classes, groups (named, non-capturing), alternatives (the first),
 * quantifiers (their least count, one for + and {0,…} of a class) — a named group given a value
 * where it fits; the name is then checked with the pattern itself, and null when it is not one
 * (the caller refuses the profile naming file_pattern).
 */

interface Cursor {
  p: string;
  i: number;
}

/** A character a class [..] takes: its first member (a range's first character); null for a negated class. */
function classExample(c: Cursor): string | null {
  c.i++; // [
  const negated = c.p[c.i] === '^';
  let first: string | null = null;
  while (c.i < c.p.length && c.p[c.i] !== ']') {
    let ch = c.p[c.i] as string;
    if (ch === '\\') {
      c.i++;
      ch = escapeExample(c.p[c.i] ?? '');
    }
    first ??= ch;
    c.i++;
  }
  c.i++; // ]
  return negated ? null : first;
}

function escapeExample(ch: string): string {
  if (ch === 'd') return '1';
  if (ch === 'w') return 'a';
  if (ch === 's') return ' ';
  return ch;
}

/** How many times the atom just read is written: its quantifier's least count, one for + and for an optional class. */
function repeatCount(c: Cursor): number {
  const q = c.p[c.i];
  if (q === '?' || q === '*') {
    c.i++;
    if (c.p[c.i] === '?') c.i++;
    return 0;
  }
  if (q === '+') {
    c.i++;
    if (c.p[c.i] === '?') c.i++;
    return 1;
  }
  if (q === '{') {
    const m = /^\{(\d+)(?:,(\d*))?\}/.exec(c.p.slice(c.i));
    if (m === null) return 1;
    c.i += m[0].length;
    return Number(m[1]);
  }
  return 1;
}

/** The example of the alternatives up to a ")" or the end: the first alternative, the others skipped. */
function sequence(c: Cursor, values: Record<string, string>): string | null {
  let out = '';
  while (c.i < c.p.length) {
    const ch = c.p[c.i] as string;
    if (ch === ')') return out;
    if (ch === '|') {
      skipAlternatives(c);
      return out;
    }
    let atom: string | null;
    if (ch === '(') atom = group(c, values);
    else if (ch === '[') atom = classExample(c);
    else if (ch === '\\') {
      atom = escapeExample(c.p[c.i + 1] ?? '');
      c.i += 2;
    } else if (ch === '^' || ch === '$') {
      atom = '';
      c.i++;
    } else {
      atom = ch === '.' ? 'x' : ch;
      c.i++;
    }
    if (atom === null) return null;
    out += atom.repeat(repeatCount(c));
  }
  return out;
}

/** Past the other alternatives of a group, to its ")" (or the end). */
function skipAlternatives(c: Cursor): void {
  let depth = 0;
  for (; c.i < c.p.length; c.i++) {
    const ch = c.p[c.i];
    if (ch === '\\') c.i++;
    else if (ch === '(') depth++;
    else if (ch === ')') {
      if (depth === 0) return;
      depth--;
    }
  }
}

function group(c: Cursor, values: Record<string, string>): string | null {
  const named = /^\(\?<([A-Za-z_$][\w$]*)>/.exec(c.p.slice(c.i));
  const start = named !== null ? named[0].length : c.p.startsWith('(?:', c.i) ? 3 : 1;
  c.i += start;
  const inner = sequence(c, values);
  c.i++; // )
  if (inner === null) return null;
  const given = named?.[1] === undefined ? undefined : values[named[1]];
  return given ?? inner;
}

/**
 * A base name `pattern` takes whose named groups hold `values` where they fit (else a value the
 * group's own pattern writes); null when none could be written.
 */
export function patternExample(pattern: string, values: Record<string, string>): string | null {
  const full = new RegExp(`^(?:${pattern})$`);
  for (const tried of [values, {}]) {
    const c: Cursor = { p: pattern, i: 0 };
    const name = sequence(c, tried);
    if (name !== null && c.i >= pattern.length && full.test(name)) return name;
  }
  return null;
}
