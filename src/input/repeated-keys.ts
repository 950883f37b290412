/**
 * The pre-scan of a run's files for `load` with processing beside staging (src/pipeline/load.ts):
 * which source keys are on more than one line of them. Their rows are staged HELD until the run's
 * staging ends, so that processing never merges an earlier line of a key before its last line is
 * staged (the staging rule: the last line of a key wins; if it is rejected, orders must not have
 * taken an earlier one).
 *
 * Keys are read by the same reader as staging (src/input/order-file.ts: the same CSV rules,
 * encoding, gzip, formula guard) and trimmed as parseOrderRecord trims them, so a key staging
 * sees twice is always found here. Each key is kept as a 53-bit hash (8 bytes a line, in a
 * KeyHashTable), sorted at the end: equal neighbours are the repeated hashes, and only those are
 * kept for the run (8 bytes each). Two keys with the same hash are both taken as repeated: a
 * collision only holds a key until the file is staged, it never lets one through.
 */
import { controlTallyOf, type ControlOutcome } from './control/control-check.js';
import { ContentDigest, fileIdentity, identityDelay } from './file-digest.js';
import { KeyHashTable, type RepeatedHashes } from './key-hashes.js';
import { OpenedFile } from './opened-file.js';
import { openOrderFile, type FileEncoding } from './order-file.js';
import type { LoadProfile } from './profile/load-profile.js';

/** A 53-bit hash of a string: two 32-bit FNV-1a-like hashes of its UTF-16 units, 32 + 21 bits. */
export function keyHash53(key: string): number {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) >>> 11);
}

export interface RepeatedKeys {
  /** Whether `key` (as staged: trimmed) may be on more than one line of the file. */
  has(key: string): boolean;
  /** Distinct hashes found more than once. */
  readonly count: number;
  /** Lines whose key was read. */
  readonly lines: number;
  /** Bytes it keeps for the run: 8 a repeated hash (the lines' hashes are let go once read). */
  readonly bytes: number;
  /**
   * Each file as the pre-read found it, by path: its identity (sha256 of the bytes read, from the
   * same pass) and what staging's opening of it checks (the same file, read to the same size).
   */
  readonly files: ReadonlyMap<string, FileSeen>;
}

export interface FileSeen {
  sha256: string;
  seen: ReturnType<OpenedFile['seen']>;
  /** The file's control totals checked on the whole file (its profile's `control:`), from the same pass. */
  control?: ControlOutcome | undefined;
}

interface PreReadOptions {
  encoding: FileEncoding;
  delimiter: string;
  profile?: LoadProfile | undefined;
  /** Each file's own profile (an inbox routed by --profiles); `profile` for a file it gives none. */
  profileOf?: ((path: string) => LoadProfile | undefined) | undefined;
  signal?: AbortSignal | undefined;
  maxInflate?: number | undefined;
}

/** The answer kept for the run: made apart from the table, so that nothing it holds keeps the lines' hashes. */
function repeatedKeysOf(repeated: RepeatedHashes, lines: number, files: ReadonlyMap<string, FileSeen>): RepeatedKeys {
  return {
    has: (key: string) => repeated.count > 0 && repeated.has(keyHash53(key)),
    count: repeated.count,
    lines,
    bytes: repeated.bytes,
    files,
  };
}

/**
 * Read the files whole (each from its first line, also when staging resumes) and find the keys on
 * more than one line of them, within a file or across files; each file's identity from the same
 * pass. One file open at a time.
 */
export async function findRepeatedKeys(paths: readonly string[], options: PreReadOptions): Promise<RepeatedKeys> {
  const table = new KeyHashTable();
  const add = (key: string): void => table.add(keyHash53(key));
  const files = new Map<string, FileSeen>();
  for (const path of paths) {
    const opened = await OpenedFile.open(path);
    if (typeof opened === 'string') continue; // only with `seen`
    try {
      await identityDelay(path);
      const digest = new ContentDigest();
      const control = await readKeys(path, opened, digest, options, add);
      files.set(path, {
        sha256: await fileIdentity(opened, digest, options.signal, options.maxInflate),
        seen: opened.seen(),
        ...(control === undefined ? {} : { control }),
      });
    } finally {
      await opened.close();
    }
  }
  return repeatedKeysOf(table.repeated(), table.lines, files);
}

/** Each key of one file (trimmed, not empty) told to `add`, its content to `digest`; its control totals checked when its profile has them. */
async function readKeys(
  path: string,
  opened: OpenedFile,
  digest: ContentDigest,
  options: PreReadOptions,
  add: (key: string) => void,
): Promise<ControlOutcome | undefined> {
  const profile = options.profileOf?.(path) ?? options.profile;
  const spec = profile?.spec;
  const tally = controlTallyOf(spec);
  // the key as staging reads it: through the file's profile (its columns, prefix) when it has one
  const file = await openOrderFile(path, {
    encoding: options.encoding,
    delimiter: options.delimiter,
    profile,
    signal: options.signal,
    read: { file: opened, tap: digest, maxInflate: options.maxInflate },
  });
  try {
    for await (const item of file.items) {
      tally?.add(item);
      if (item.kind !== 'record') continue;
      const key = item.fields.source_key.trim();
      if (key !== '') add(key);
    }
    // not when the run was interrupted: what was read is not the whole file
    return tally === null || options.signal?.aborted === true ? undefined : await tally.finish(file, opened.size, opened);
  } finally {
    file.close();
  }
}
