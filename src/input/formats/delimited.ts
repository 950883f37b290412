/**
 * The delimited text format reader (the built-in CSV format, and a profile's `format: csv`): the
 * header checked, each record of the record reader made an item — the built-in five columns, or
 * the profile's columns mapped —, a line-local CSV error rejected and read past, a structural one
 * ending the file.
 */
import { RunAbortedError, UserError } from '../../errors.js';
import { controlRecordRule, type ControlRecord } from '../control/control-record.js';
import { unwrapExcelGuard } from '../excel-guard.js';
import { invalidBytesMessage } from '../file-encoding.js';
import { restoreFormula } from '../formula-guard.js';
import { GzipDataError } from '../gzip.js';
import type { FileItem, FileReject, OrderFile, OrderFileHeader, OrderFileOptions, PassedOverReason } from '../order-file.js';
import { ORDER_COLUMNS, type OrderColumn } from '../order-record.js';
import { attributesJson } from '../profile/attributes.js';
import type { LoadProfile } from '../profile/load-profile.js';
import { csvErrorSummary, LINE_LOCAL_CSV_ERRORS } from './csv-api.js';
import { describeHeader, profileHeader, type ProfileColumns } from './delimited-header.js';
import { openRecordReader, type ParsedRecord } from './delimited-records.js';
import { anyIncludes, cleanRaw, NUL_BYTE_MESSAGE, rawText, ReadRecord, reject } from './raw-span.js';

/**
 * Open a delimited file (its size known, gzip sniffed and its encoding decided by openOrderFile):
 * read and check its header (before anything is written anywhere), then stream its records with
 * backpressure. Memory is bounded by one record.
 */
export async function openDelimitedFile(path: string, size: number, options: OrderFileOptions, profile?: LoadProfile): Promise<OrderFile> {
  const utf8 = options.encoding === 'utf-8';
  // a decoder's U+FFFD stands for bytes the encoding does not have, except in UTF-16 (which can
  // hold the character itself) and windows-1252 (every byte is a character): such a line is rejected
  const invalidBytes = invalidBytesMessage(options.encoding);
  const spec = profile?.spec;
  const skipLines = spec?.skip_lines ?? 0;
  const comment = spec?.comment;
  let discarded = 0;
  let discardedByWhen = 0;
  const controlRule = spec === undefined ? null : controlRecordRule(spec);
  const controls: ControlRecord[] = [];
  const observe = options.observe;
  /**
   * A record a profile passes over before the header or anywhere: banner lines, comments (a line
   * that starts with the comment, not a quoted first field that does: "#7" is data).
   */
  const passedOver = (next: ParsedRecord): boolean =>
    lineBase + next.startLine <= skipLines ||
    (comment !== undefined && (next.record[0] ?? '').trimStart().startsWith(comment) && rawText(next).trimStart().startsWith(comment));
  const tellPassedOver = (next: ParsedRecord, reason: PassedOverReason, value?: string): void =>
    observe?.passedOver({
      lineNo: lineBase + next.startLine,
      raw: rawText(next),
      reason: reason === 'when' || reason === 'header' || lineBase + next.startLine > skipLines ? reason : 'skip_lines',
      ...(value === undefined ? {} : { value }),
    });
  const reader = openRecordReader(path, options);
  const lineBase = options.resumeAt !== undefined ? options.resumeAt.line : 0;
  const byteBase = options.resumeAt?.byte ?? 0;

  let header: OrderFileHeader;
  // where the header ends: the last line read before the first data line
  let headerEnd = { line: lineBase + 1, byte: byteBase };
  let profileColumns: ProfileColumns | null = null;
  if (spec !== undefined && spec.header === false) {
    header = { names: [], errorExport: false, positions: new Map(), extraColumns: [], columnCount: 0 };
    profileColumns = profileHeader([], path, profile as LoadProfile, 0, options.onWarning);
  } else if (options.resumeAt === undefined) {
    let first: ParsedRecord | null;
    try {
      for (;;) {
        first = await reader.next();
        if (first === null || spec === undefined || !passedOver(first)) break;
        discarded++;
        tellPassedOver(first, 'comment');
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
    headerEnd = { line: lineBase + first.endLine, byte: byteBase + first.bytes };
    try {
      if (profile === undefined) header = describeHeader(first.record, path);
      else {
        profileColumns = profileHeader(first.record, path, profile, lineBase + first.startLine, options.onWarning);
        header = profileColumns.header;
      }
    } catch (error) {
      reader.close();
      throw error;
    }
    if (observe !== undefined) tellPassedOver(first, 'header');
    // the lines passed over before the header are not data lines
    discarded = 0;
  } else {
    // Resuming mid-file: the header was checked by the run that started the load; read it
    // again from the first line without consuming the resumed stream.
    header = await readHeaderOnly(path, size, options, profile);
    if (profile !== undefined) profileColumns = profileHeader(header.names, path, profile, 0, options.onWarning);
  }

  const errorExport = header.errorExport;
  const exportAttributes = profile === undefined ? header.attributes : undefined;
  const columnCount = header.columnCount;
  const position = (column: OrderColumn): number => header.positions.get(column) ?? -1;
  const [iSourceKey, iCustomerId, iOrderDate, iAmount, iCurrency] = ORDER_COLUMNS.map(position) as [number, number, number, number, number];
  const orderIndexes = [iSourceKey, iCustomerId, iOrderDate, iAmount, iCurrency];
  let lastEndLine = options.resumeAt === undefined ? headerEnd.line : lineBase;
  let lastEndByte: number | null = utf8 ? (options.resumeAt === undefined ? headerEnd.byte : byteBase) : null;
  let finished = false;

  /** What the parser's failure makes of the rest of the file: one rejected line, or the end. */
  async function afterFailure(error: unknown): Promise<FileItem> {
    const e = error as Error & { code?: string; lines?: number };
    if (e.code !== undefined && LINE_LOCAL_CSV_ERRORS.has(e.code)) {
      // An error confined to one line (a record too large): reject that line with its text and
      // read on from the next one, in every encoding.
      const skipped = await reader.skipFailedLine();
      const endByte = utf8 ? byteBase + skipped.bytes : null;
      const endLine = lineBase + skipped.lineNo;
      const item: FileReject = {
        kind: 'reject',
        lineNo: endLine,
        raw: cleanRaw(skipped.raw),
        code: `CSV_${e.code.replace(/^CSV_/, '')}`,
        message: `${csvErrorSummary(e)}; the line was skipped`,
        endByte,
        endLine,
        stopsFile: false,
      };
      lastEndLine = endLine;
      lastEndByte = endByte;
      if (skipped.atEnd) finished = true;
      return item;
    }
    const startLine = lastEndLine + 1;
    finished = true;
    return {
      kind: 'reject',
      lineNo: startLine,
      raw: '',
      code: e instanceof GzipDataError ? e.code : `CSV_${(e.code ?? 'ERROR').replace(/^CSV_/, '')}`,
      message: `${csvErrorSummary(e)}; the file could not be read past line ${startLine - 1}`,
      endByte: lastEndByte,
      endLine: startLine,
      stopsFile: true,
    };
  }

  /** The item of a record the parser read; null: a line the profile discards. */
  function toItem(next: ParsedRecord): FileItem | null {
    const record = next.record;
    const endLine = lineBase + next.endLine;
    const endByte = utf8 ? byteBase + next.bytes : null;
    lastEndLine = endLine;
    lastEndByte = endByte;
    const lineNo = lineBase + next.startLine;
    if (profileColumns !== null) {
      // a control record (trailer or header) states the file's totals: no data row, whatever
      // skip_lines, comment or `when` say (a header record is often in skip_lines too)
      if (controlRule?.fields(record) === true) {
        controls.push({ lineNo, fields: [...record], text: rawText(next) });
        if (observe !== undefined) tellPassedOver(next, 'control');
        return null;
      }
      if (passedOver(next)) {
        discarded++;
        if (observe !== undefined) tellPassedOver(next, 'comment');
        return null;
      }

      return toProfileItem(next, profileColumns, record, lineNo, endByte, endLine);
    }
    if (record.length !== columnCount) {
      return reject(
        lineNo,
        next,
        'PARSE_FIELD_COUNT',
        `expected ${columnCount} fields as in the header, found ${record.length}`,
        endByte,
        endLine,
      );
    }
    // Our own export carries the rejected line's raw text (with its U+FFFD) in a column that
    // is not loaded: only the order columns it holds must be valid text. Every character of a
    // line other than its delimiters and quotes is in one of its fields.
    if (
      !next.clean &&
      (utf8 || invalidBytes !== null) &&
      (errorExport ? orderIndexes.some((i) => record[i]?.includes('\uFFFD') === true) : anyIncludes(record, '\uFFFD'))
    ) {
      return reject(
        lineNo,
        next,
        'PARSE_ENCODING',
        invalidBytes ?? 'the line is not valid UTF-8 (use --encoding shift_jis for a Shift_JIS file)',
        endByte,
        endLine,
      );
    }
    if (!next.clean && anyIncludes(record, '\u0000')) return reject(lineNo, next, 'PARSE_NUL_BYTE', NUL_BYTE_MESSAGE, endByte, endLine);
    // Excel's text guard ="000123" is unwrapped in every field (src/input/excel-guard.ts)
    const fields: Record<OrderColumn, string> = errorExport
      ? {
          source_key: unwrapExcelGuard(restoreFormula(record[iSourceKey] ?? '')),
          customer_id: unwrapExcelGuard(restoreFormula(record[iCustomerId] ?? '')),
          order_date: unwrapExcelGuard(restoreFormula(record[iOrderDate] ?? '')),
          amount: unwrapExcelGuard(restoreFormula(record[iAmount] ?? '')),
          currency: unwrapExcelGuard(restoreFormula(record[iCurrency] ?? '')),
        }
      : {
          source_key: unwrapExcelGuard(record[iSourceKey] ?? ''),
          customer_id: unwrapExcelGuard(record[iCustomerId] ?? ''),
          order_date: unwrapExcelGuard(record[iOrderDate] ?? ''),
          amount: unwrapExcelGuard(record[iAmount] ?? ''),
          currency: unwrapExcelGuard(record[iCurrency] ?? ''),
        };
    if (observe !== undefined)
      observe.fieldsRead(lineNo, {
        source_key: record[iSourceKey] ?? '',
        customer_id: record[iCustomerId] ?? '',
        order_date: record[iOrderDate] ?? '',
        amount: record[iAmount] ?? '',
        currency: record[iCurrency] ?? '',
      });
    // our own export read back: its attribute columns are the row's attributes again
    if (exportAttributes !== undefined)
      return new ReadRecord(lineNo, fields, endByte, endLine, next, null, attributesJson(record, exportAttributes, restoreFormula));
    return new ReadRecord(lineNo, fields, endByte, endLine, next);
  }

  /** A record read through the profile: its columns found, `when` applied, mapped onto the five fields. */
  function toProfileItem(
    next: ParsedRecord,
    columns: ProfileColumns,
    record: string[],
    lineNo: number,
    endByte: number | null,
    endLine: number,
  ): FileItem | null {
    // `when` first: a trailer with fewer fields (TOTAL|4|16399.50) is not an order, not a field-count error
    if (columns.when >= 0 && !columns.mapping.keep(record[columns.when] ?? '')) {
      discarded++;
      discardedByWhen++;
      if (observe !== undefined) tellPassedOver(next, 'when', record[columns.when] ?? '');
      return null;
    }
    if (columns.header.columnCount > 0 ? record.length !== columns.header.columnCount : record.length < columns.needed) {
      const expected =
        columns.header.columnCount > 0 ? `${columns.header.columnCount} fields as in the header` : `at least ${columns.needed} fields`;
      return reject(lineNo, next, 'PARSE_FIELD_COUNT', `expected ${expected}, found ${record.length}`, endByte, endLine);
    }
    if (!next.clean && (utf8 || invalidBytes !== null) && anyIncludes(record, '\uFFFD')) {
      return reject(
        lineNo,
        next,
        'PARSE_ENCODING',
        invalidBytes ?? 'the line is not valid UTF-8 (set encoding: in the profile)',
        endByte,
        endLine,
      );
    }
    if (!next.clean && anyIncludes(record, '\u0000')) return reject(lineNo, next, 'PARSE_NUL_BYTE', NUL_BYTE_MESSAGE, endByte, endLine);
    if (observe !== undefined) {
      const indexes = columns.indexes;
      const raw = {} as Record<OrderColumn, string | null>;
      for (const c of ORDER_COLUMNS) raw[c] = indexes[c] < 0 ? null : (record[indexes[c]] ?? '');
      observe.fieldsRead(lineNo, raw);
    }
    const fields = columns.mapping.recordFields(record, columns.order);
    const kept = columns.attributes;
    const attributes = kept === null ? null : attributesJson(record, typeof kept === 'function' ? kept(record.length) : kept);
    return new ReadRecord(lineNo, fields, endByte, endLine, next, columns.mapping.lastProblem(), attributes);
  }

  const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };
  const result = (next: ParsedRecord | null): IteratorResult<FileItem> | Promise<IteratorResult<FileItem>> => {
    if (next === null) {
      finished = true;
      profileColumns?.mapping.finish();
      return DONE;
    }
    const item = toItem(next);
    // a discarded line: on to the next record
    return item === null ? iteratorOfItems.next() : { done: false, value: item };
  };
  // An async iterator by hand rather than an async generator: while the parser has records
  // queued, an item costs one resolved promise (a generator's yield costs several microtask
  // turns; the generator was ≈ 8 % of the dry run's CPU).
  const iteratorOfItems: AsyncIterableIterator<FileItem> = {
    next(): Promise<IteratorResult<FileItem>> {
      if (finished) return Promise.resolve(DONE);
      for (;;) {
        let pending: ParsedRecord | null | Promise<ParsedRecord | null>;
        try {
          pending = reader.next();
        } catch (error) {
          return afterFailure(error).then((item) => ({ done: false, value: item }));
        }
        if (pending instanceof Promise)
          return pending.then(result, (error: unknown) => afterFailure(error).then((item) => ({ done: false as const, value: item })));
        if (pending === null) return Promise.resolve(result(null));
        const item = toItem(pending);
        // a discarded line: on to the next record, without a promise while records are queued
        if (item !== null) return Promise.resolve({ done: false, value: item });
      }
    },
    return(): Promise<IteratorResult<FileItem>> {
      finished = true;
      return Promise.resolve(DONE);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };

  return {
    path,
    size,
    header,
    items: iteratorOfItems,
    bytesRead: () => reader.bytesRead(),
    discarded: () => discarded,
    discardedByWhen: () => discardedByWhen,
    controlRecords: () => controls,
    close: () => reader.close(),
  };
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
