/**
 * Open choices: what `order-loader guess` could not decide from the file is written into its
 * draft as `open:` (at the top level, or under the column it concerns) with the candidates and
 * their evidence as comments. A profile that still holds one is refused before anything is read
 * or written, naming it: an undecided draft never loads.
 */

/** One open choice: where it is (a key path) and what is to be decided. */
export interface OpenChoice {
  path: Array<string | number>;
  text: string;
}

function texts(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  return value === null || value === undefined ? ['(no text)'] : [JSON.stringify(value)];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The open choices of a profile's data (as YAML or JSON reads it, before it is checked), in document order. */
export function openChoices(data: unknown): OpenChoice[] {
  if (!isRecord(data)) return [];
  const out: OpenChoice[] = [];
  if ('open' in data) for (const text of texts(data.open)) out.push({ path: ['open'], text });
  const columns = data.columns;
  if (isRecord(columns))
    for (const [field, spec] of Object.entries(columns))
      if (isRecord(spec) && 'open' in spec) for (const text of texts(spec.open)) out.push({ path: ['columns', field, 'open'], text });
  return out;
}
