/**
 * guess: what a file's name gives the draft. Its `name:` (the base name without dates, numbers and
 * extensions), a `match:` pattern that takes the partner's next files too (every run of digits a
 * `*`, so `orders_20261201.csv` is matched as `orders_*.csv`), and a currency code the name holds
 * (`orders_USD_20261201.csv`): then a `file_pattern` whose named group gives every order its
 * currency, and `match:` takes the other currencies' files as well.
 */
import { basename } from 'node:path';

export interface FileNameFacts {
  name: string;
  match: string;
  /** A currency code the name holds, with the pattern that takes it from the name. */
  currency: { code: string; pattern: string } | null;
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** The facts of `path`'s base name; `known`: the currency codes taken for one. */
export function fileNameFacts(path: string, known: ReadonlySet<string>): FileNameFacts {
  const base = basename(path);
  // the name's parts: runs of letters, digits, and the rest
  const parts = base.match(/[A-Za-z]+|\d+|[^A-Za-z\d]+/g) ?? [base];
  const atEdge = (i: number) => i === 0 || /^[^A-Za-z\d]+$/.test(parts[i - 1] ?? '');
  const afterEdge = (i: number) => i === parts.length - 1 || /^[^A-Za-z\d]/.test(parts[i + 1] ?? '');
  const codeAt = parts.findIndex((p, i) => /^[A-Z]{3}$/.test(p) && known.has(p) && atEdge(i) && afterEdge(i));
  const code = codeAt === -1 ? null : (parts[codeAt] as string);
  const match = parts.map((p, i) => (i === codeAt ? '???' : /^\d+$/.test(p) ? '*' : p)).join('');
  const pattern = parts
    .map((p, i) => (i === codeAt ? '(?<currency>[A-Z]{3})' : /^\d+$/.test(p) ? `\\d{${p.length}}` : escapeRegex(p)))
    .join('');
  const stem = parts
    .filter((p, i) => i !== codeAt && !/^\d+$/.test(p))
    .join('')
    .replace(/\.(csv|tsv|txt|dat|prn|gz|xlsx|jsonl|ndjson)(?=\.|$)/gi, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/([._-])[._-]+/g, '$1')
    .replace(/^[._-]+|[._-]+$/g, '')
    .slice(0, 64);
  return { name: stem === '' ? 'partner' : stem, match, currency: code === null ? null : { code, pattern } };
}
