/**
 * guess: what a column's values look like. Pure. Dates (dates.ts) and amounts (amounts.ts) have
 * modules of their own; here ISO currency codes, Excel's text guards and full-width characters.
 */
export { dateEvidence, dateShare, type DateEvidence, type MaskHits } from './dates.js';
export { numberEvidence, type NegativeForm, type NumberEvidence } from './amounts.js';

/** ISO 4217 codes seen in order files; any three capitals also count, these say more. */
export const KNOWN_CURRENCIES: ReadonlySet<string> = new Set(
  'EUR USD JPY GBP CHF CNY KRW HKD SGD AUD NZD CAD SEK NOK DKK PLN CZK HUF RON BGN TRY INR IDR THB MYR PHP VND TWD BRL MXN ZAR AED SAR ILS RUB UAH ISK'.split(
    ' ',
  ),
);

export function currencyEvidence(values: readonly string[]): { codes: number; known: number; of: number; top: string | null } {
  const filled = values.filter((v) => v !== '');
  const codes = filled.filter((v) => /^[A-Z]{3}$/.test(v));
  const counts = new Map<string, number>();
  for (const c of codes) counts.set(c, (counts.get(c) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  return { codes: codes.length, known: codes.filter((c) => KNOWN_CURRENCIES.has(c)).length, of: filled.length, top };
}

/** A value as the reader takes it: Excel's text guard `="000123"` unwrapped. */
export function unguard(value: string): string {
  const m = /^="(.*)"$/.exec(value);
  return m === null ? value : (m[1] as string).replaceAll('""', '"');
}

/** Full-width digits, letters or signs (Ａ, １, －): NFKC makes them ASCII. */
export function hasFullWidth(text: string): boolean {
  return /[\uff01-\uff5e]/.test(text);
}
