/**
 * The one place a file is opened for reading (openOrderFile): its size (an empty file refused),
 * gzip sniffed from its first bytes, its encoding decided (a BOM, the profile's), then the reader
 * of its format — the built-in CSV format without a profile, the profile's `format:` with one
 * (src/input/formats/format-reader.ts). And what every format reader gives the pipeline: an
 * OrderFile of items, each a FileRecord (line number, the five fields, raw text, resume position)
 * or a FileReject.
 */
import { UserError } from '../errors.js';
import type { ControlRecord } from './control/control-record.js';
import { fileEncoding, invalidBytesMessage, type FileEncoding } from './file-encoding.js';
import { openDelimitedFile } from './formats/delimited.js';
import { formatReader } from './formats/format-reader.js';
import { isGzipFile, type ByteSourceOptions } from './gzip.js';
import { sizeToRead, type OpenedFile } from './opened-file.js';
import { ORDER_COLUMNS, type OrderColumn, type ParsedOrder } from './order-record.js';
import type { AttributeColumns } from './profile/attributes.js';
import type { LoadProfile } from './profile/load-profile.js';
import type { MappingProblem } from './profile/mapping.js';

export { fileEncoding, invalidBytesMessage, type FileEncoding };

export interface OrderFileOptions {
  encoding: FileEncoding;
  /** The file as the run opened it (read through its descriptor, to its size taken once), a tap on its content, the gzip cap. */
  read?: (Pick<ByteSourceOptions, 'tap' | 'maxInflate'> & { file?: OpenedFile | undefined }) | undefined;
  delimiter: string;
  /** The file is gzip-compressed (found by openOrderFile from its first bytes when not said): offsets are into its content. */
  gzip?: boolean | undefined;
  /** Resume: start reading at this byte offset of the content (the start of a record), counting lines from `startLine`. */
  resumeAt?: { byte: number; line: number } | undefined;
  /** Largest record accepted, in characters; a longer one is rejected, not buffered without end. */
  maxRecordSize?: number | undefined;
  /**
   * Once aborted, reading ends after the records already read (the items end as at the end of
   * the file: the caller, who aborted, knows it did not read to the end). Checked at every chunk
   * read, so also while a run of blank lines yields no record for a long time.
   */
  signal?: AbortSignal | undefined;
  /** A load profile (src/input/profile/): the file's format and its mapping onto the five fields; none: the built-in format. */
  profile?: LoadProfile | undefined;
  /** Told what a reader finds wrong with the file as a whole (a profile's date mask that matches none of the first lines). */
  onWarning?: ((message: string) => void) | undefined;
  /**
   * Every line read by csv-parse, also where the input has no quote (which is otherwise split
   * without it, to the same records): for the tests that compare the two.
   */
  csvParseOnly?: boolean | undefined;
  /** Bytes per read of the file (default 256 KiB): small in the tests that put many chunk boundaries in a small file. */
  readChunkSize?: number | undefined;
  /** Told about each line as it is read (`preview`, src/pipeline/preview.ts); nothing is asked of it on a load. */
  observe?: ReadObserver | undefined;
}

/** Why a line is not a data line: a banner line (`skip_lines`), a `comment`, the header, a control record; or `when` discarded it. */
export type PassedOverReason = 'skip_lines' | 'comment' | 'header' | 'when' | 'control';

/**
 * What `preview` is told by the reader, in file order, as the items are read: the lines that are
 * no data lines, and for each data line the text the format reader found for each field, just
 * before the profile maps it (the built-in format: the fields as written). A rejected line (field
 * count, encoding, a CSV error) is an item and has no fields.
 */
export interface ReadObserver {
  passedOver(line: { lineNo: number; raw: string; reason: PassedOverReason; value?: string }): void;
  /** null: a field the file does not hold (a profile's `const`). */
  fieldsRead(lineNo: number, raw: Record<OrderColumn, string | null>): void;
}

export interface OrderFileHeader {
  /** The header's names in file order, as written. */
  names: string[];
  /** Written by `errors --format csv` (isErrorExportHeader): its formula guard is removed from the values. */
  errorExport: boolean;
  /** Position of each known column in a record. */
  positions: Map<OrderColumn, number>;
  /** Header names we do not use (ignored, with a warning). */
  extraColumns: string[];
  columnCount: number;
  /**
   * The columns kept as each record's attributes (a profile's `extra`; the attribute columns of
   * an `errors` export read back), src/input/profile/attributes.ts; absent: none kept.
   */
  attributes?: AttributeColumns | undefined;
}

/** A data record of the file. */
export interface FileRecord {
  kind: 'record';
  lineNo: number;
  /** The line's text as read (decoded when asked for: a record that is staged never needs it). */
  readonly raw: string;
  fields: Record<OrderColumn, string>;
  /** Byte offset just past this record (a resume point), when the encoding allows it. */
  endByte: number | null;
  endLine: number;
  /** A field the profile could not map (the line is a PARSE_* error of that field); absent with the built-in format. */
  problem?: MappingProblem | null;
  /**
   * The line's order, parsed and valid, when a profile's mapping found its fields plainly so
   * (Mapping's MappedRecord.order): taken as it is, `fields` not parsed or judged again. Absent or
   * null: parse `fields`.
   */
  order?: ParsedOrder | null;
  /** The line's other columns kept (canonical JSON text of name → text), or null: none kept, or all of them empty. */
  attributes?: string | null;
  /**
   * The line's text for later, holding only what decoding it needs (not the record, its fields
   * or its parser state): what a staging batch keeps of each line until it commits, in case the
   * database refuses the row. Absent: keep the record itself.
   */
  rawLater?(): { readonly raw: string };
}

/** A line that could not be read as a record of this file. */
export interface FileReject {
  kind: 'reject';
  lineNo: number;
  raw: string;
  code: string;
  message: string;
  endByte: number | null;
  endLine: number;
  /** The parser could not continue past this point: the rest of the file was not read. */
  stopsFile: boolean;
}

export type FileItem = FileRecord | FileReject;

export interface OrderFile {
  path: string;
  size: number;
  header: OrderFileHeader;
  items: AsyncIterable<FileItem>;
  /** Bytes consumed so far (for progress). */
  bytesRead(): number;
  /** Lines a profile discarded so far (`skip_lines` after the header's, `comment`, `when`): counted apart, never errors. */
  discarded(): number;
  /** Of those, the lines `when` discarded (the warning that every line was discarded names the rule). */
  discardedByWhen?(): number;
  /** The records the profile's control rule matched so far (`control: trailer|header`): no data rows, nor discarded lines. */
  controlRecords?(): readonly ControlRecord[];
  close(): void;
}

/**
 * Open an order file for a run: its header read and checked before anything is written anywhere,
 * its records streamed with backpressure by its format's reader.
 */
export async function openOrderFile(path: string, options: OrderFileOptions): Promise<OrderFile> {
  const size = await sizeToRead(path, options.read?.file);
  if (size === 0)
    throw new UserError(
      options.profile === undefined
        ? `${path}: the file is empty (expected a header line ${ORDER_COLUMNS.join(',')})`
        : `${path}: the file is empty (profile ${options.profile.name})`,
    );

  const file = options.read?.file ?? path;
  if (options.gzip === undefined) options = { ...options, gzip: await isGzipFile(file) };
  const profile = options.profile;
  if (profile !== undefined) {
    // the profile says how the file is read: its encoding (a BOM says UTF-16) and delimiter
    options = { ...options, encoding: await fileEncoding(file, profile.spec.encoding), delimiter: profile.spec.delimiter ?? ',' };
    return formatReader(profile)(path, size, options, profile);
  }
  if (options.encoding === 'utf-8') {
    // a UTF-16 file (by its BOM) is decoded as such, also on a resumed read
    options = { ...options, encoding: await fileEncoding(file, options.encoding) };
  }
  return openDelimitedFile(path, size, options, undefined);
}
