/**
 * guess: where each order's currency comes from, and the currency signs its amounts may carry.
 * Pure. A column of codes; else the amounts' signs when each names one currency (`¥`, `円`, `€`;
 * `$` names several); else a code in the file's name (`orders_USD_…`); else an open choice. A
 * sign beside a currency column is mapped to the code it is seen with (so a sign that contradicts
 * the column is a rejection, never stripped silently).
 */
import { currencyOfSign, type NumberEvidence } from './amounts.js';
import { strip } from './amounts.js';
import type { FieldProposal } from './fields.js';
import type { FileNameFacts } from './file-name.js';
import { KNOWN_CURRENCIES } from './values.js';

export type CurrencySource =
  | { kind: 'column' }
  | { kind: 'sign'; why: string }
  | { kind: 'name'; code: string; pattern: string; why: string }
  | { kind: 'open'; text: string };

export interface CurrencyDecision {
  source: CurrencySource;
  /** sign → the code it stands for (null: accepted, says nothing of the currency); empty when the amounts carry none. */
  signs: Record<string, string | null>;
}

/** The codes seen with each sign on the same records (amount and currency columns side by side). */
function signCodes(amounts: readonly string[], codes: readonly string[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  amounts.forEach((v, i) => {
    const { sign } = strip(v);
    const code = codes[i] ?? '';
    if (sign !== null && code !== '') out.set(sign, (out.get(sign) ?? new Set()).add(code));
  });
  return out;
}

export function decideCurrency(amount: FieldProposal, currency: FieldProposal, name: FileNameFacts): CurrencyDecision {
  const number: NumberEvidence | undefined = amount.number;
  const seen = Object.keys(number?.signs ?? {});
  const signs: Record<string, string | null> = {};
  if (currency.column !== null) {
    const paired = signCodes(amount.column?.values ?? [], currency.column.values);
    for (const s of seen) {
      const codes = paired.get(s);
      signs[s] = codes?.size === 1 ? ([...codes][0] as string) : null;
    }
    return { source: { kind: 'column' }, signs };
  }
  for (const s of seen) signs[s] = currencyOfSign(s, KNOWN_CURRENCIES);
  const named = [...new Set(Object.values(signs))];
  const allSigned = number !== undefined && number.numeric > 0 && number.signed === number.numeric;
  const fromName = name.currency;
  if (allSigned && named.length === 1 && named[0] !== null && (fromName === null || fromName.code === named[0])) {
    const what = Object.entries(signs)
      .map(([s, c]) => `${JSON.stringify(s)} → ${c ?? ''}`)
      .join(', ');
    return { source: { kind: 'sign', why: `every amount carries a sign that names its currency (${what})` }, signs };
  }
  if (fromName !== null && named.every((c) => c === null || c === fromName.code))
    return {
      source: {
        kind: 'name',
        code: fromName.code,
        pattern: fromName.pattern,
        why: `no column holds currency codes; the file's name holds ${fromName.code}`,
      },
      signs,
    };
  const signsSaid = `the amounts' signs (${seen.map((s) => JSON.stringify(s)).join(', ')})`;
  const said =
    seen.length === 0
      ? 'the amounts carry no currency sign'
      : named.length > 1
        ? `${signsSaid} name different currencies`
        : named[0] === null
          ? `${signsSaid} name no one currency`
          : `${signsSaid} name ${named[0] ?? ''}, but ${(number?.numeric ?? 0) - (number?.signed ?? 0)} amount(s) carry none`;
  const nameSaid = fromName === null ? 'and the file name holds no currency code' : `and the file name says ${fromName.code}`;
  return {
    source: {
      kind: 'open',
      text: `currency: no column holds currency codes, ${said} ${nameSaid}: write const: with the file's currency code`,
    },
    signs,
  };
}
