/**
 * `guess` on README's three worked examples (examples/profiles/: eu-erp, headerless,
 * mainframe-sjis) proposes their profiles: the draft, once its open choices are answered and the
 * user's own choices of the example are written in (a key prefix, a CSV `when` that is a business
 * rule, a default or a constant the file does not hold, null_if), reads every line of the data
 * file exactly as the example profile does. What the file does not show is an open choice, never
 * a value offered without evidence.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { guessProfile } from '../../src/input/guess/index.js';
import { openOrderFile } from '../../src/input/order-file.js';
import { parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';

const example = (name: string) => fileURLToPath(new URL(`../../examples/profiles/${name}`, import.meta.url));

type Spec = Record<string, unknown> & { columns: Record<string, Record<string, unknown>> };

/** The keys of a column that are the user's choice, not something the file shows. */
const USER_COLUMN_KEYS = ['prefix', 'default', 'const'] as const;

/** The draft with its open choices answered, and the example's user choices written in. */
function answered(draft: Spec, profile: Spec): Spec {
  const out: Spec = { ...draft, columns: {} };
  delete out.open;
  for (const key of ['name', 'match', 'null_if'] as const) if (profile[key] !== undefined) out[key] = profile[key];
  // a CSV `when` tests a business value (a status): the user's rule; a fixed file's record type is guessed
  if (profile.format === 'csv' && profile.when !== undefined) out.when = profile.when;
  for (const [field, column] of Object.entries(draft.columns)) {
    const next: Record<string, unknown> = { ...column };
    delete next.open;
    const want = profile.columns[field] ?? {};
    for (const key of USER_COLUMN_KEYS) if (want[key] !== undefined) next[key] = want[key];
    out.columns[field] = next;
  }
  return out;
}

async function readAll(path: string, profile: LoadProfile): Promise<unknown[]> {
  const file = await openOrderFile(path, { encoding: 'utf-8', delimiter: ',', profile });
  const items: unknown[] = [];
  for await (const item of file.items)
    items.push(
      item.kind === 'record'
        ? { line: item.lineNo, fields: item.fields, problem: item.problem?.code ?? null }
        : { line: item.lineNo, code: item.code },
    );
  return items;
}

describe("guess on README's examples proposes their profiles", () => {
  it.each([
    ['eu-erp.csv', 'eu-erp.yaml', []],
    // the file holds no currency at all (no column, no sign, nothing in its name): its profile's JPY is the user's word
    ['headerless.csv', 'headerless.yaml', ['columns.currency']],
    ['mainframe-sjis.dat', 'mainframe-sjis.yaml', []],
  ] as const)('%s: the draft reads every line as %s does; open only %j', async (data, profileFile, open) => {
    const guessed = await guessProfile(example(data));
    expect(guessed.open.map((o) => o.slice(0, o.indexOf(':')))).toEqual(open);
    const profile = parse(readFileSync(example(profileFile), 'utf8')) as Spec;
    const draft = answered(parse(guessed.yaml) as Spec, profile);
    const fromDraft = await readAll(example(data), parseProfileText(stringify(draft), 'draft.yaml', 'draft'));
    const fromExample = await readAll(example(data), parseProfileText(readFileSync(example(profileFile), 'utf8'), profileFile, 'x'));
    expect(fromDraft.length).toBeGreaterThan(0);
    expect(fromDraft).toEqual(fromExample);
  });

  it('a currency the file does not show is left open with no code offered (no uncommented line could load a made-up one)', async () => {
    const { yaml } = await guessProfile(example('headerless.csv'));
    const currency = yaml.slice(yaml.indexOf('  currency:'));
    expect(currency).toMatch(/^ {2}currency:\n {4}open: "currency: no column holds currency codes/);
    // the commented line a user uncomments names no currency: "<code>" is no code (longer than 3), every line would be refused
    expect(currency).toContain('    # const: "<code>"');
    expect(currency).not.toMatch(/const: "[A-Z]{3}"/);
  });
});
