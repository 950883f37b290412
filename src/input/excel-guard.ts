/**
 * Excel's text guard: a cell written `="000123"` is the formula of a text, and Excel shows
 * `000123` (leading zeros and all). Exports write it so that a key or a long code is not read as a
 * number; CSV may quote it again (`"=""000123"""`). Every field, in a profile and in the built-in
 * format, is read as the text inside: no order value is a formula.
 */

/** `="000123"` (blanks around allowed) → `000123`; `="a""b"` → `a"b`; anything else as it is. */
export function unwrapExcelGuard(v: string): string {
  const c = v.charCodeAt(0);
  if (c !== 61 && c !== 32 && c !== 9) return v;
  const t = c === 61 ? v : v.trim();
  const n = t.length;
  if (n < 3 || t.charCodeAt(0) !== 61 || t.charCodeAt(1) !== 34 || t.charCodeAt(n - 1) !== 34) return v;
  const inner = t.slice(2, n - 1);
  if (!inner.includes('"')) return inner;
  // a quote inside a formula's text is written twice; a lone one means another formula (="a"&"b"): kept as written
  const undoubled = inner.replaceAll('""', '');
  return undoubled.includes('"') ? v : inner.replaceAll('""', '"');
}
