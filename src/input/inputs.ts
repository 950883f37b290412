/**
 * What `load` and `stage` are given, as the list of files to read: a file names itself; a
 * directory names its order files in name order; a pattern with `*` or `?` in its last part
 * names the order files of its directory that match, in name order.
 *
 * Order files of a directory (and of a pattern): regular files whose name does not start with
 * `.` (hidden, and where our own lock files live) and does not end with `.part`, `.tmp`,
 * `.partial`, `.crdownload` or `~` (uploads and copies in progress). Subdirectories are not
 * entered (an archive or failed folder inside the inbox is not read again).
 *
 * Node 20 has no fs.glob; a pattern library would bring `**`, braces and classes that an inbox
 * does not need. Only `*` (any characters but `/`) and `?` (one character) in the file name.
 */
import { readdirSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../errors.js';

/** A file to read, with its size and modification time when it was listed. */
export interface ListedFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** One argument, expanded. */
export interface ExpandedInput {
  arg: string;
  kind: 'file' | 'directory' | 'pattern';
  /** The directory whose files it names (the file's own directory for a file). */
  dir: string;
  files: ListedFile[];
}

const PARTIAL_SUFFIXES = ['.part', '.tmp', '.partial', '.crdownload', '~'];

/** Whether a directory entry's name is taken as an order file (see the module comment). */
export function isOrderFileName(name: string): boolean {
  return !name.startsWith('.') && !PARTIAL_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

export function isPattern(arg: string): boolean {
  return /[*?]/.test(arg);
}

/** A file name pattern as a RegExp: `*` any run of characters, `?` one, everything else itself. */
function patternRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/[\\^$.|+()[\]{}]/g, '\\$&')
    .replaceAll('*', '.*')
    .replaceAll('?', '.');
  return new RegExp(`^${body}$`, 'su');
}

function listed(path: string, st: Stats): ListedFile {
  return { path, size: st.size, mtimeMs: st.mtimeMs };
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new UserError(`${path}: cannot read (${code ?? 'error'})`, { cause: error });
  }
}

/** The order files of `dir` whose names `accept`s, in name order (by code point, whatever the locale). */
function orderFilesOf(dir: string, accept: (name: string) => boolean): ListedFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UserError(code === 'ENOENT' ? `${dir}: no such directory` : `${dir}: cannot list (${code ?? 'error'})`, { cause: error });
  }
  const files: ListedFile[] = [];
  for (const name of names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!isOrderFileName(name) || !accept(name)) continue;
    const path = join(dir, name);
    const st = statOrNull(path);
    // removed since the listing, or not a regular file
    if (st?.isFile() === true) files.push(listed(path, st));
  }
  return files;
}

/**
 * The folder an argument lists (a directory, a pattern's directory) or, for a file, the folder
 * it lives in, without listing anything: the inbox lock is taken on it before the listing.
 * A path that cannot be read counts as a file (expandInput says why).
 */
export function inputFolder(arg: string): { kind: 'pattern' | 'directory' | 'file'; dir: string } {
  if (isPattern(arg)) return { kind: 'pattern', dir: dirname(arg) };
  let directory = false;
  try {
    directory = statSync(arg).isDirectory();
  } catch {
    // not there or not readable: expandInput reports it
  }
  return directory ? { kind: 'directory', dir: arg } : { kind: 'file', dir: dirname(arg) };
}

/** Expand one argument (a file, a directory, or a pattern in one directory). */
export function expandInput(arg: string): ExpandedInput {
  if (isPattern(arg)) {
    const dir = dirname(arg);
    if (isPattern(dir)) throw new UserError(`${arg}: only the file name may hold * or ? (one directory, no subdirectories)`);
    const re = patternRegExp(basename(arg));
    return { arg, kind: 'pattern', dir, files: orderFilesOf(dir, (name) => re.test(name)) };
  }
  const st = statOrNull(arg);
  if (st === null) throw new UserError(`${arg}: no such file`);
  if (st.isDirectory()) return { arg, kind: 'directory', dir: arg, files: orderFilesOf(arg, () => true) };
  if (!st.isFile()) throw new UserError(`${arg}: not a file`);
  return { arg, kind: 'file', dir: dirname(arg), files: [listed(arg, st)] };
}

/** Every argument expanded, a file named twice read once (its first place kept). */
export function expandInputs(args: string[]): { inputs: ExpandedInput[]; files: ListedFile[] } {
  const inputs = args.map(expandInput);
  const seen = new Set<string>();
  const files: ListedFile[] = [];
  for (const input of inputs) {
    for (const file of input.files) {
      if (seen.has(file.path)) continue;
      seen.add(file.path);
      files.push(file);
    }
  }
  return { inputs, files };
}

/**
 * Why a listed file is not to be read now: its size or modification time changed since it was
 * listed (it is still being written). Null when it is as listed.
 */
export function changedSinceListed(file: ListedFile): string | null {
  const st = statOrNull(file.path);
  if (st === null) return `${file.path}: gone since it was listed (another run took it?): not read`;
  if (st.size !== file.size || st.mtimeMs !== file.mtimeMs)
    return `${file.path}: still being written (${st.size !== file.size ? `size ${file.size} → ${st.size} bytes` : 'modified'} since it was listed): skipped this time`;
  return null;
}
