/** A file of a load opened for its header check or its staging (src/pipeline/load.ts). */
import { UserError } from '../errors.js';
import { checkFileEncoding } from '../input/encoding-sniff.js';
import type { OpenedFile } from '../input/opened-file.js';
import { fileEncoding, openOrderFile, type OrderFile } from '../input/order-file.js';
import type { LoadOptions, LoadReport } from './load-options.js';

/**
 * Open a file and check its encoding and header. A file whose header is refused is set aside with
 * --failed-dir (null), else that refuses the run.
 */
export async function openChecked(
  path: string,
  options: LoadOptions,
  aside: { unreadable: LoadReport['unreadable'] },
  signal?: AbortSignal,
  opened?: OpenedFile,
): Promise<OrderFile | null> {
  try {
    // a file read as UTF-8 that reads as Shift_JIS or EUC-JP is refused as a header is (the
    // encoding the file is read with: a profile's, and a UTF-16 byte order mark decides)
    await checkFileEncoding(
      path,
      await fileEncoding(opened ?? path, options.profile?.spec.encoding ?? options.encoding),
      options.profile?.spec.format,
    );
    return await openOrderFile(path, {
      encoding: options.encoding,
      delimiter: options.delimiter,
      profile: options.profile,
      signal,
      read: { file: opened, maxInflate: options.maxInflate },
      onWarning: (message) => options.logger.warn({ file: path }, message),
    });
  } catch (error) {
    if (options.failedDir === undefined || !(error instanceof UserError)) throw error;
    options.logger.warn({ file: path }, `${error.message}: cannot be read as an order file (for --failed-dir)`);
    aside.unreadable.push({ file: path, reason: error.message, movedTo: null });
    return null;
  }
}
