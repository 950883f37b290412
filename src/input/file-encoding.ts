/** The encoding a file is decoded with, found from its first bytes and what was asked. */
import { UserError } from '../errors.js';
import { isGzipFile, openByteSource } from './gzip.js';
import type { OpenedFile } from './opened-file.js';
import type { ProfileEncoding } from './profile/schema.js';

/** How a file's bytes are decoded: `utf-8` is read as is, every other through a TextDecoder (no byte offsets, so no resume point). */
export type FileEncoding = 'utf-8' | 'shift_jis' | 'euc-jp' | 'utf-16le' | 'utf-16be' | 'windows-1252';

/**
 * The encoding a file is read with: a UTF-16 byte order mark decides for UTF-16 whatever was
 * asked (a UTF-16 file read as UTF-8 is NUL bytes), and a profile's `utf-16` needs one; a UTF-8
 * byte order mark refuses any other encoding asked (the file is refused, not read). The
 * same answer on a resumed read, which starts mid-file: it is part of the file's identity.
 */
export async function fileEncoding(file: string | OpenedFile, asked: FileEncoding | ProfileEncoding): Promise<FileEncoding> {
  const path = typeof file === 'string' ? file : file.path;
  let first: Buffer = Buffer.alloc(0);
  try {
    const source = openByteSource(file, { gzip: await isGzipFile(file), highWaterMark: 64 });
    try {
      const chunk = await source.chunks.next();
      if (chunk.done !== true) first = chunk.value;
    } finally {
      source.close();
    }
  } catch {
    // a file that cannot be read (missing, a folder, no permission) is said by the reader
  }
  if (first[0] === 0xff && first[1] === 0xfe) return 'utf-16le';
  if (first[0] === 0xfe && first[1] === 0xff) return 'utf-16be';
  if (asked === 'utf-16') throw new UserError(`${path}: encoding utf-16 is known by its byte order mark, and this file has none`);
  // a UTF-8 byte order mark read as another encoding would be text of the first field (ï»¿ in windows-1252)
  if (first[0] === 0xef && first[1] === 0xbb && first[2] === 0xbf && asked !== 'utf-8')
    throw new UserError(`${path}: the file starts with a UTF-8 byte order mark, but it is to be read as ${asked}: read it as utf-8`);
  return asked;
}

/**
 * The rejection of a line whose decoded text holds U+FFFD, for the decoded encodings in which it
 * can only stand for bytes the encoding does not have; null for the others (UTF-8 has its own).
 */
export function invalidBytesMessage(encoding: FileEncoding): string | null {
  const name = encoding === 'shift_jis' ? 'Shift_JIS' : encoding === 'euc-jp' ? 'EUC-JP' : null;
  return name === null ? null : `the line is not valid ${name}: it holds bytes that encoding does not have`;
}
