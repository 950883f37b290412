/**
 * The delimited text format reader (the built-in CSV format, and a profile's `format: csv`): the
 * header checked, then each record of the record reader made an item (delimited-items.ts).
 */
import { RunAbortedError, UserError } from '../../errors.js';
import type { OrderFile, OrderFileHeader, OrderFileOptions } from '../order-file.js';
import { ORDER_COLUMNS } from '../order-record.js';
import type { LoadProfile } from '../profile/load-profile.js';
import { csvErrorSummary } from './csv-api.js';
import { describeHeader, profileHeader, type ProfileColumns } from './delimited-header.js';
import { DelimitedItems } from './delimited-items.js';
import { openRecordReader, type ParsedRecord, type RecordReader } from './delimited-records.js';

/**
 * Open a delimited file (its size known, gzip sniffed and its encoding decided by openOrderFile):
 * read and check its header (before anything is written anywhere), then stream its records with
 * backpressure. Memory is bounded by one record.
 */
export async function openDelimitedFile(path: string, size: number, options: OrderFileOptions, profile?: LoadProfile): Promise<OrderFile> {
  const reader = openRecordReader(path, options);
  const items = new DelimitedItems(reader, options, profile?.spec);
  let header: OrderFileHeader;
  let columns: ProfileColumns | null = null;
  // where the header ends: the last line read before the first data line
  let end = { line: items.lineBase, byte: items.byteBase };
  if (profile !== undefined && profile.spec.header === false) {
    header = { names: [], errorExport: false, positions: new Map(), extraColumns: [], columnCount: 0 };
    columns = profileHeader([], path, profile, 0, options.onWarning);
    if (options.resumeAt === undefined) end = { line: items.lineBase + 1, byte: items.byteBase };
  } else if (options.resumeAt === undefined) {
    const first = await readHeaderLine(path, options, profile, reader, items);
    end = { line: items.lineBase + first.endLine, byte: items.byteBase + first.bytes };
    try {
      if (profile === undefined) header = describeHeader(first.record, path);
      else {
        columns = profileHeader(first.record, path, profile, items.lineBase + first.startLine, options.onWarning);
        header = columns.header;
      }
    } catch (error) {
      reader.close();
      throw error;
    }
    if (options.observe !== undefined) items.tellPassedOver(first, 'header');
  } else {
    // Resuming mid-file: the header was checked by the run that started the load; read it
    // again from the first line without consuming the resumed stream.
    header = await readHeaderOnly(path, size, options, profile);
    if (profile !== undefined) columns = profileHeader(header.names, path, profile, 0, options.onWarning);
  }
  items.start(header, columns, end);
  return {
    path,
    size,
    header,
    items,
    bytesRead: () => reader.bytesRead(),
    discarded: () => items.discarded,
    discardedByWhen: () => items.discardedByWhen,
    controlRecords: () => items.controls,
    close: () => reader.close(),
  };
}

/** The header line: the first record a profile does not pass over (banner lines, comments). */
async function readHeaderLine(
  path: string,
  options: OrderFileOptions,
  profile: LoadProfile | undefined,
  reader: RecordReader,
  items: DelimitedItems,
): Promise<ParsedRecord> {
  let first: ParsedRecord | null;
  try {
    for (;;) {
      first = await reader.next();
      if (first === null || profile === undefined) break;
      if (items.takenAsHeaderRecord(first)) continue;
      if (!items.passedOver(first)) break;
      items.tellPassedOver(first, 'comment');
    }
  } catch (error) {
    reader.close();
    throw new UserError(`${path}: line 1: cannot read the header: ${csvErrorSummary(error as Error)}`);
  }
  if (first === null) {
    reader.close();
    if (options.signal?.aborted === true) throw new RunAbortedError(`interrupted while reading the header of ${path}`, 'interrupted');
    throw new UserError(
      `${path}: the file has no header line (expected ${profile === undefined ? ORDER_COLUMNS.join(',') : 'the header the profile names'})`,
    );
  }
  return first;
}

/** The header of a file whose read resumes mid-file: read again from its first line. */
async function readHeaderOnly(
  path: string,
  size: number,
  options: OrderFileOptions,
  profile: LoadProfile | undefined,
): Promise<OrderFileHeader> {
  const file = await openDelimitedFile(
    path,
    size,
    { ...options, read: { ...options.read, tap: undefined }, resumeAt: undefined, observe: undefined },
    profile,
  );
  file.close();
  return file.header;
}
