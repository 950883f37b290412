/**
 * What `load` and `stage` are given, as the list of files to read: a file names itself; a
 * directory names its order files in name order; a pattern with `*` or `?` in its last part
 * names the order files of its directory that match, in name order.
 *
 * Order files of a directory (and of a pattern): regular files whose name does not start with
 * `.` (hidden, and where our own lock files live) and does not end with `.part`, `.tmp`,
 * `.partial`, `.crdownload` or `~` (uploads and copies in progress), nor with the marker suffix
 * (`--ready-suffix`). Subdirectories are not entered (an archive or failed folder inside the
 * inbox is not read again). Any other entry of the folder that could have been meant as an order
 * file — a FIFO (never opened: that would block), a socket or device, a symlink to one or to
 * nothing, a directory named like a file (`x.csv`) — is not read and is said (`ignored`).
 *
 * Files still being uploaded (`ListingRules`): a file of a directory or pattern modified less
 * than `settleMs` ago (or in the future: another host's clock) is left for the next run; with
 * `readySuffix`, a file of a directory or pattern is read only once its marker `<name><suffix>`
 * exists (then its time does not matter), and the marker moves with it. A file named on the
 * command line is taken as finished (the person or job naming it says so), unless it is inside
 * its quiet period and its last line has no line end: that is a writer in the middle of a line.
 *
 * Node 20 has no fs.glob; a pattern library would bring `**`, braces and classes that an inbox
 * does not need. Only `*` (any characters but `/`) and `?` (one character) in the file name.
 */
import { closeSync, lstatSync, openSync, readdirSync, readSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../errors.js';

/** A file to read, with its size and modification time when it was listed. */
export interface ListedFile {
  path: string;
  size: number;
  mtimeMs: number;
  /** Its marker file (`--ready-suffix`), when it has one: moved with it. */
  marker?: string | undefined;
  /** Named on the command line (not found in a directory or by a pattern): a user asked for it, so leaving it is not a quiet exit 0. */
  named?: true;
}

/** How files still being uploaded are told apart (see the module comment). */
export interface ListingRules {
  /** The quiet period in ms: a file of a directory or pattern modified more recently is left (0: none). */
  settleMs: number;
  /** The marker suffix (`.done`): a file of a directory or pattern is read once `<name><suffix>` exists. */
  readySuffix?: string | undefined;
  /** The time to measure against (tests); Date.now() when not given. */
  now?: number | undefined;
}

/** A file left for the next run, and why (said once, in the report too). */
export interface NotReadyFile {
  file: string;
  reason: string;
  /**
   * A file named on the command line, left because its last line had no line end within the
   * quiet period: when that period ends (epoch ms). The run waits for it (named-wait.ts); one
   * still left after that makes the run exit 2: the user named it and it was not read.
   */
  named?: { quietEndsAt: number };
}

/** An entry of an inbox that is not read: not a regular file (a FIFO, a dangling symlink, …). */
export interface IgnoredEntry {
  file: string;
  reason: string;
}

/** One argument, expanded. */
export interface ExpandedInput {
  arg: string;
  kind: 'file' | 'directory' | 'pattern';
  /** The directory whose files it names (the file's own directory for a file). */
  dir: string;
  files: ListedFile[];
  notReady: NotReadyFile[];
  ignored: IgnoredEntry[];
}

const NO_RULES: ListingRules = { settleMs: 0 };

const PARTIAL_SUFFIXES = ['.part', '.tmp', '.partial', '.crdownload', '~'];

/** Whether a directory entry's name is taken as an order file (see the module comment). */
export function isOrderFileName(name: string): boolean {
  return !name.startsWith('.') && !PARTIAL_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

export function isPattern(arg: string): boolean {
  return /[*?]/.test(arg);
}

/** A file name pattern as a RegExp: `*` any run of characters, `?` one, everything else itself (also a profile's `match:`). */
export function patternRegExp(pattern: string): RegExp {
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

/** A directory named like a file (`x.csv`, `x.csv.gz`): someone meant a file there; `archive` is just a folder. */
const FILE_LIKE_NAME = /.\.[A-Za-z0-9]{1,10}$/;

/** What a non-regular entry is, for the warning; null for one left alone without a word. */
function ignoredKind(name: string, link: boolean, st: Stats | null): string | null {
  if (st === null) return link ? 'a symlink to nothing (its target does not exist)' : null;
  const to = link ? 'a symlink to ' : '';
  if (st.isDirectory()) return FILE_LIKE_NAME.test(name) ? `${to}a directory, not a file` : null;
  if (st.isFIFO()) return `${to}a FIFO (never opened: reading it would wait for a writer)`;
  if (st.isSocket()) return `${to}a socket`;
  if (st.isCharacterDevice() || st.isBlockDevice()) return `${to}a device`;
  return `${to}not a regular file`;
}

function formatAge(ms: number): string {
  return ms < 0 ? `${Math.round(-ms / 1000)} s in the future (another clock?)` : `${Math.floor(ms / 1000)} s ago`;
}

/** Whether a file of a directory or pattern is to be read now (see the module comment); its listing either way. */
function readiness(file: ListedFile, rules: ListingRules, now: number): NotReadyFile | null {
  if (rules.readySuffix !== undefined) {
    const marker = `${file.path}${rules.readySuffix}`;
    if (statOrNull(marker)?.isFile() === true) {
      file.marker = marker;
      return null;
    }
    return { file: file.path, reason: `${file.path}: no marker ${basename(marker)} yet (--ready-suffix): left for the next run` };
  }
  const age = now - file.mtimeMs;
  if (rules.settleMs > 0 && age < rules.settleMs)
    return {
      file: file.path,
      reason: `${file.path}: modified ${formatAge(age)}, within the quiet period (--settle ${rules.settleMs / 1000} s): left for the next run`,
    };
  return null;
}

/** The order files of `dir` whose names `accept`s, in name order (by code point, whatever the locale). */
function orderFilesOf(
  dir: string,
  accept: (name: string) => boolean,
  rules: ListingRules,
  now: number,
): Omit<ExpandedInput, 'arg' | 'kind' | 'dir'> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UserError(code === 'ENOENT' ? `${dir}: no such directory` : `${dir}: cannot list (${code ?? 'error'})`, { cause: error });
  }
  const out: Omit<ExpandedInput, 'arg' | 'kind' | 'dir'> = { files: [], notReady: [], ignored: [] };
  const suffix = rules.readySuffix;
  for (const name of names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!isOrderFileName(name) || (suffix !== undefined && name.endsWith(suffix)) || !accept(name)) continue;
    const path = join(dir, name);
    const link = lstatOrNull(path);
    // removed since the listing
    if (link === null) continue;
    const st = link.isSymbolicLink() ? statOrNull(path) : link;
    if (st?.isFile() !== true) {
      const kind = ignoredKind(name, link.isSymbolicLink(), st);
      if (kind !== null) out.ignored.push({ file: path, reason: `${path}: ${kind}: not read` });
      continue;
    }
    const file = listed(path, st);
    const notReady = readiness(file, rules, now);
    if (notReady === null) out.files.push(file);
    else out.notReady.push(notReady);
  }
  return out;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new UserError(`${path}: cannot read (${code ?? 'error'})`, { cause: error });
  }
}

/** The signature of a zip's end of central directory, its last record (followed by a comment of at most 65,535 bytes). */
const ZIP_END = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

/**
 * Whether a file's last line has no line end (a writer in the middle of a line). A gzip file is
 * not looked at: a cut gzip is found by its reader (GZIP_TRUNCATED). A zip (an xlsx workbook) has
 * no lines: it is unfinished until its end of central directory is written, which a copy writes last.
 */
export function lastLineUnfinished(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const size = statSync(path).size;
    if (size === 0) return false;
    const head = Buffer.alloc(2);
    readSync(fd, head, 0, 2, 0);
    if (head[0] === 0x1f && head[1] === 0x8b) return false;
    if (head[0] === 0x50 && head[1] === 0x4b) {
      const tail = Buffer.alloc(Math.min(size, 22 + 65_535));
      readSync(fd, tail, 0, tail.length, size - tail.length);
      return tail.lastIndexOf(ZIP_END) < 0;
    }
    // UTF-16 (by its byte-order mark) ends a line with two bytes, the line end and a zero byte
    // (LE) or the zero byte first (BE): its last byte alone says nothing
    const wide = head[0] === 0xff && head[1] === 0xfe ? 'le' : head[0] === 0xfe && head[1] === 0xff ? 'be' : null;
    if (wide !== null) {
      if (size < 4) return size > 2;
      const last = Buffer.alloc(2);
      readSync(fd, last, 0, 2, size - 2);
      const unit = wide === 'le' ? last.readUInt16LE(0) : last.readUInt16BE(0);
      return unit !== 0x0a && unit !== 0x0d;
    }
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a && last[0] !== 0x0d;
  } finally {
    closeSync(fd);
  }
}

/** A file named on the command line: read, unless inside its quiet period with its last line unfinished. */
function namedFile(arg: string, st: Stats, rules: ListingRules, now: number): Omit<ExpandedInput, 'arg' | 'kind' | 'dir'> {
  const file: ListedFile = { ...listed(arg, st), named: true };
  if (rules.readySuffix !== undefined && statOrNull(`${arg}${rules.readySuffix}`)?.isFile() === true)
    file.marker = `${arg}${rules.readySuffix}`;
  const age = now - st.mtimeMs;
  if (file.marker === undefined && rules.settleMs > 0 && age < rules.settleMs && lastLineUnfinished(arg))
    return {
      files: [],
      notReady: [
        {
          file: arg,
          reason: `${arg}: its last line has no line end and it was modified ${formatAge(age)} (--settle ${rules.settleMs / 1000} s): still being written? left for the next run (--settle 0 reads it now)`,
          named: { quietEndsAt: st.mtimeMs + rules.settleMs },
        },
      ],
      ignored: [],
    };
  return { files: [file], notReady: [], ignored: [] };
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
export function expandInput(arg: string, rules: ListingRules = NO_RULES): ExpandedInput {
  const now = rules.now ?? Date.now();
  if (isPattern(arg)) {
    const dir = dirname(arg);
    if (isPattern(dir)) throw new UserError(`${arg}: only the file name may hold * or ? (one directory, no subdirectories)`);
    const re = patternRegExp(basename(arg));
    return { arg, kind: 'pattern', dir, ...orderFilesOf(dir, (name) => re.test(name), rules, now) };
  }
  const st = statOrNull(arg);
  if (st === null) throw new UserError(`${arg}: no such file`);
  if (st.isDirectory()) return { arg, kind: 'directory', dir: arg, ...orderFilesOf(arg, () => true, rules, now) };
  if (!st.isFile()) throw new UserError(`${arg}: not a file`);
  return { arg, kind: 'file', dir: dirname(arg), ...namedFile(arg, st, rules, now) };
}

/**
 * Every argument expanded, a file named twice read once (its first place kept). A file left by
 * one argument but read by another is read; each entry left or ignored is listed once.
 */
export function expandInputs(
  args: string[],
  rules: ListingRules = NO_RULES,
): { inputs: ExpandedInput[]; files: ListedFile[]; notReady: NotReadyFile[]; ignored: IgnoredEntry[] } {
  const inputs = args.map((arg) => expandInput(arg, rules));
  const seen = new Set<string>();
  const files: ListedFile[] = [];
  for (const input of inputs) {
    for (const file of input.files) {
      if (seen.has(file.path)) continue;
      seen.add(file.path);
      files.push(file);
    }
  }
  const once = <T extends { file: string }>(entries: T[]): T[] => {
    const out: T[] = [];
    for (const entry of entries) {
      if (seen.has(entry.file)) continue;
      seen.add(entry.file);
      out.push(entry);
    }
    return out;
  };
  const notReady = once(inputs.flatMap((i) => i.notReady));
  const ignored = once(inputs.flatMap((i) => i.ignored));
  return { inputs, files, notReady, ignored };
}

/**
 * Before any folder is made or locked: every argument names something that exists (a pattern,
 * its directory). An input folder is never created: a missing inbox (a share not mounted, a
 * typing error) is a failure, not an empty night.
 */
export function checkInputsExist(args: string[]): void {
  for (const arg of args) {
    const path = isPattern(arg) ? dirname(arg) : arg;
    const st = statOrNull(path);
    if (st === null) throw new UserError(`${path}: no such file or directory (an input folder is never created: is it mounted?)`);
    if (isPattern(arg) && !st.isDirectory()) throw new UserError(`${path}: not a directory`);
  }
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
