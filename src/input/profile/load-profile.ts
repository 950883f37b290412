/**
 * A profile file (YAML, or JSON: the same schema) read and checked before any order file is
 * opened or the database touched. Every refusal is one line naming the key path and the YAML line.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, extname } from 'node:path';
import type * as Yaml from 'yaml';
import type { z } from 'zod';
import { UserError } from '../../errors.js';
import { openChoices } from './open-choices.js';
import { profileSchema, type LoadProfileSpec } from './schema.js';

type Document = Yaml.Document;
type YamlNode = Yaml.Node;

const requireCjs = createRequire(import.meta.url);
let yamlModule: typeof Yaml | undefined;

/**
 * The YAML parser (a CommonJS package), loaded when the first profile is read: a command without
 * a profile (the built-in format, a dry run, a load) does not pay for its 70-odd modules.
 */
function yaml(): typeof Yaml {
  yamlModule ??= requireCjs('yaml') as typeof Yaml;
  return yamlModule;
}

/** A checked profile: its spec, the name it is known by and the hash of its content. */
export interface LoadProfile {
  name: string;
  /** sha256 of the profile's content as checked (canonical JSON): part of a load's identity. */
  sha256: string;
  spec: LoadProfileSpec;
  /** The file it was read from (named in messages about it), when it was read from one. */
  source?: string | undefined;
  /** `extra: ignore` was written (not the default): the columns left out are not warned about. */
  quietExtra?: boolean;
}

function pathText(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out === '' ? '(top)' : out;
}

/** The YAML node at a key path, or null. */
function nodeAt(doc: Document, path: ReadonlyArray<PropertyKey>): YamlNode | null {
  let node: unknown = doc.contents;
  for (const key of path) {
    if (yaml().isMap(node)) {
      const pair = node.items.find((p) => (yaml().isScalar(p.key) ? p.key.value : p.key) === key);
      node = pair?.value ?? null;
    } else if (yaml().isSeq(node) && typeof key === 'number') node = node.items[key] ?? null;
    else return null;
  }
  return (node as YamlNode | null) ?? null;
}

/** The key node of the last step of a path (for an unknown key), or null. */
function keyNodeAt(doc: Document, path: ReadonlyArray<PropertyKey>, key: string): YamlNode | null {
  const parent = nodeAt(doc, path);
  if (!yaml().isMap(parent)) return null;
  const pair = parent.items.find((p) => (yaml().isScalar(p.key) ? p.key.value : p.key) === key);
  return (pair?.key as YamlNode | undefined) ?? null;
}

function lineOf(node: YamlNode | null, lines: Yaml.LineCounter): string {
  const start = node?.range?.[0];
  return start === undefined ? '' : ` (line ${lines.linePos(start).line})`;
}

/** A plain (unquoted) YAML scalar that another YAML reader (1.1) would make a date: refused where text is meant. */
const YAML11_DATE = /^\d{4}-\d{1,2}-\d{1,2}(?:[Tt ].*)?$/;

/** The first plain scalar that reads as a date, anywhere in the document (every profile value that is a date-like text is text). */
function findPlainDate(node: unknown, path: PropertyKey[]): { node: YamlNode; path: PropertyKey[] } | null {
  if (yaml().isMap(node)) {
    for (const pair of node.items) {
      const key = yaml().isScalar(pair.key) ? pair.key.value : pair.key;
      const found = findPlainDate(pair.value, [...path, key as PropertyKey]);
      if (found !== null) return found;
    }
  } else if (yaml().isSeq(node)) {
    for (let i = 0; i < node.items.length; i++) {
      const found = findPlainDate(node.items[i], [...path, i]);
      if (found !== null) return found;
    }
  } else if (yaml().isScalar(node) && node.type === 'PLAIN' && typeof node.value === 'string' && YAML11_DATE.test(node.value)) {
    return { node, path };
  }
  return null;
}

function describeIssue(doc: Document, issue: z.core.$ZodIssue, lines: Yaml.LineCounter): string {
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    return `${pathText([...issue.path, key])}: unknown key${issue.keys.length > 1 ? ` (also ${issue.keys.slice(1).join(', ')})` : ''}${lineOf(keyNodeAt(doc, issue.path, key), lines)}`;
  }
  const node = nodeAt(doc, issue.path);
  const where = lineOf(node, lines);
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_union') && yaml().isScalar(node) && node.type === 'PLAIN') {
    const source = (node as { source?: string }).source ?? String(node.value);
    if (typeof node.value === 'number' || typeof node.value === 'boolean') {
      const expected = issue.code === 'invalid_type' ? issue.expected : 'text';
      if (expected === 'string' || issue.code === 'invalid_union')
        return `${pathText(issue.path)}: YAML reads ${source} as a ${typeof node.value === 'number' ? 'number' : 'boolean'}: quote it ("${source}")${where}`;
    }
  }
  if (issue.code === 'invalid_value' && issue.path.at(-1) === 'encoding') {
    return `${pathText(issue.path)}: unknown encoding (utf-8, shift_jis, euc-jp, utf-16, windows-1252)${where}`;
  }
  return `${pathText(issue.path)}: ${issue.message}${where}`;
}

/** A draft of `guess` with a choice still open (`open:`) is refused, naming the first and how many more. */
function refuseOpenChoices(doc: Document, data: unknown, source: string, lines: Yaml.LineCounter): void {
  const open = openChoices(data);
  const first = open[0];
  if (first === undefined) return;
  const where = first.path.length === 1 ? 'open' : pathText(first.path.slice(0, -1));
  const more = open.length > 1 ? ` (and ${open.length - 1} more open choice(s))` : '';
  throw new UserError(
    `profile ${source}: ${where}: an open choice guess left: ${first.text}${lineOf(nodeAt(doc, first.path), lines)}; decide it and remove its open: line${more}`,
  );
}

/** Check a profile's text (YAML or JSON). `source` names it in messages; `fallbackName` is its name when it has none. */
export function parseProfileText(textContent: string, source: string, fallbackName: string): LoadProfile {
  const lines = new (yaml().LineCounter)();
  const doc = yaml().parseDocument(textContent, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const yamlError = doc.errors[0];
  if (yamlError !== undefined) {
    const line = yamlError.linePos?.[0].line ?? lines.linePos(yamlError.pos[0]).line;
    throw new UserError(`profile ${source}: not a YAML or JSON profile: ${yamlError.message.split('\n')[0] ?? ''} (line ${line})`);
  }
  if (!yaml().isMap(doc.contents)) throw new UserError(`profile ${source}: not a profile (expected keys such as version: 1 and columns:)`);
  const date = findPlainDate(doc.contents, []);
  if (date !== null) {
    const value = (date.node as { source?: string }).source ?? '';
    throw new UserError(
      `profile ${source}: ${pathText(date.path)}: ${value} reads as a date in YAML: quote it ("${value}")${lineOf(date.node, lines)}`,
    );
  }
  let data: unknown;
  try {
    // the yaml library's limit on alias expansion refuses a "billion laughs" document here
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw new UserError(`profile ${source}: not a profile: ${(error as Error).message}`, { cause: error });
  }
  refuseOpenChoices(doc, data, source, lines);
  const result = profileSchema.safeParse(data);
  if (!result.success) {
    const first = result.error.issues[0];
    const more = result.error.issues.length > 1 ? ` (and ${result.error.issues.length - 1} more)` : '';
    throw new UserError(`profile ${source}: ${first === undefined ? 'invalid' : describeIssue(doc, first, lines)}${more}`);
  }
  const spec = result.data;
  const sha256 = createHash('sha256').update(canonicalJson(spec)).digest('hex');
  const quietExtra = (data as { extra?: unknown }).extra === 'ignore';
  return { name: spec.name ?? fallbackName, sha256, spec, ...(quietExtra ? { quietExtra } : {}) };
}

/** The largest profile file read: a profile is a few dozen lines; a larger file is not one (and is not read into memory). */
const PROFILE_SIZE_LIMIT = 1_048_576;

/** Read and check a profile file (refused in one line: UserError, exit 1). */
export function loadProfileFile(path: string): LoadProfile {
  let content: string;
  try {
    // a device (/dev/zero) or a huge file would be read whole before anything could refuse it
    const st = statSync(path);
    if (!st.isFile()) throw new UserError(`profile ${path}: not a file`);
    if (st.size > PROFILE_SIZE_LIMIT)
      throw new UserError(`profile ${path}: not a load profile (${st.size} bytes; a profile is at most ${PROFILE_SIZE_LIMIT})`);
    content = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof UserError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UserError(`profile ${path}: ${code === 'ENOENT' ? 'no such file' : `cannot read (${code ?? 'error'})`}`);
  }
  if (content.includes('\u0000')) throw new UserError(`profile ${path}: not a YAML or JSON profile (a binary file)`);
  return { ...parseProfileText(content, path, basename(path, extname(path))), source: path };
}

/** JSON with object keys sorted: the same profile written in another order or style hashes alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
