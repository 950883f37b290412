/**
 * Excel's text guard: a cell written `="000123"` is the formula of a text, and Excel shows
 * `000123` (leading zeros and all). Exports write it so that a key or a long code is not read as a
 * number; CSV may quote it again (`"=""000123"""`). Every field, in a profile and in the built-in
 * format, is read as the text inside: no order value is a formula.
 */

/** `="000123"` (blanks around allowed) → `000123`; `="a""b"` → `a"b`; anything else as it is. */
export function unwrapExcelGuard(v: string): string {
  // An empty field is returned before charCodeAt(0) can read past its end: one such read
  // deoptimizes the caller, and its code compiled again calls charCodeAt as a builtin for every
  // field of every line after it (the built-in format's five per line were most of the extra
  // instructions per line of a dry run against 0846f3c: bench/RESULTS.md, run 45).
  if (v.length === 0) return v;
  const c = v.charCodeAt(0);
  return c === 61 || c === 32 || c === 9 ? unwrapGuarded(v, c) : v;
}

/** unwrapExcelGuard of a field that starts with `=` (c = 61) or a blank. */
function unwrapGuarded(v: string, c: number): string {
  const t = c === 61 ? v : v.trim();
  const n = t.length;
  if (n < 3 || t.charCodeAt(0) !== 61 || t.charCodeAt(1) !== 34 || t.charCodeAt(n - 1) !== 34) return v;
  const inner = t.slice(2, n - 1);
  if (!inner.includes('"')) return inner;
  // a quote inside a formula's text is written twice; a lone one means another formula (="a"&"b"): kept as written
  const undoubled = inner.replaceAll('""', '');
  return undoubled.includes('"') ? v : inner.replaceAll('""', '"');
}
