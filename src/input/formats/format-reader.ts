/**
 * How a profile's `format:` plugs into the reader. A format reader is one function: given the
 * file (already opened once for the run: OpenedFile, its size taken), the read options (resume
 * position, gzip, abort signal, observer) and the profile, it returns an OrderFile — records
 * with their line number, raw text for the error log, a resume position (endByte/endLine) and
 * the profile's mapping onto the five fields done. openOrderFile calls the reader of the
 * profile's format (and the delimited reader, with no profile, for the built-in format).
 */
import type { OrderFile, OrderFileOptions } from '../order-file.js';
import type { LoadProfile } from '../profile/load-profile.js';
import { openFixedFile } from '../profile/fixed-reader.js';
import { openDelimitedFile } from './delimited.js';

/** A reader that must read into the file before its first record (a workbook to its sheet and header) returns a promise. */
export type FormatReader = (path: string, size: number, options: OrderFileOptions, profile: LoadProfile) => OrderFile | Promise<OrderFile>;

const READERS: Record<LoadProfile['spec']['format'], FormatReader> = {
  csv: openDelimitedFile,
  fixed: openFixedFile,
  // imported when a profile reads that format: a run of CSV or fixed-width files starts without them
  jsonl: async (...args) => (await import('./jsonl.js')).openJsonLinesFile(...args),
  xlsx: async (...args) => (await import('./xlsx.js')).openXlsxFile(...args),
};

/** The reader of a profile's format. */
export function formatReader(profile: LoadProfile): FormatReader {
  return READERS[profile.spec.format];
}
