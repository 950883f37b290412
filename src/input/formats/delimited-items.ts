/**
 * The items of a delimited file, one per record the record reader gives past the header: the
 * built-in format's five columns (an `errors` export's formula guard removed, its attribute
 * columns kept again), or a profile's columns mapped; the lines a profile passes over (banner,
 * comment, `when`, a control record) counted, no item; a line-local CSV error one rejected line,
 * a structural one the end of the file.
 */
import { controlRecordRule, type ControlRecord } from '../control/control-record.js';
import { unwrapExcelGuard } from '../excel-guard.js';
import { invalidBytesMessage } from '../file-encoding.js';
import { restoreFormula } from '../formula-guard.js';
import { GzipDataError } from '../gzip.js';
import type { FileItem, FileReject, OrderFileHeader, OrderFileOptions, PassedOverReason } from '../order-file.js';
import { ORDER_COLUMNS, type OrderColumn } from '../order-record.js';
import { attributesJson } from '../profile/attributes.js';
import type { LoadProfileSpec } from '../profile/schema.js';
import { csvErrorSummary, LINE_LOCAL_CSV_ERRORS } from './csv-api.js';
import type { ProfileColumns } from './delimited-header.js';
import type { ParsedRecord, RecordReader } from './delimited-records.js';
import { anyIncludes, cleanRaw, NUL_BYTE_MESSAGE, rawText, ReadRecord, reject } from './raw-span.js';

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * An async iterator by hand rather than an async generator: while the parser has records
 * queued, an item costs one resolved promise (a generator's yield costs several microtask turns;
 * the generator was ≈ 8 % of the dry run's CPU).
 */
export class DelimitedItems implements AsyncIterableIterator<FileItem> {
  discarded = 0;
  discardedByWhen = 0;
  readonly controls: ControlRecord[] = [];
  readonly lineBase: number;
  readonly byteBase: number;
  private readonly utf8: boolean;
  /**
   * A decoder's U+FFFD stands for bytes the encoding does not have, except in UTF-16 (which can
   * hold the character itself) and windows-1252 (every byte is a character): such a line is rejected.
   */
  private readonly invalidBytes: string | null;
  private readonly skipLines: number;
  private readonly comment: string | undefined;
  private readonly controlRule: ReturnType<typeof controlRecordRule> | null;
  private readonly headerRecordRule: boolean;
  private readonly observe: OrderFileOptions['observe'];
  private columns: ProfileColumns | null = null;
  private header: OrderFileHeader | null = null;
  /** The header's: read once here, not through it for every line. */
  private columnCount = 0;
  private errorExport = false;
  private exportAttributes: OrderFileHeader['attributes'] = undefined;
  /** The record index of each of the five columns (the built-in format). */
  private indexes: number[] = [];
  private iSourceKey = -1;
  private iCustomerId = -1;
  private iOrderDate = -1;
  private iAmount = -1;
  private iCurrency = -1;
  private lastEndLine = 0;
  private lastEndByte: number | null = null;
  private finished = false;

  constructor(
    private readonly reader: RecordReader,
    options: OrderFileOptions,
    spec: LoadProfileSpec | undefined,
  ) {
    this.utf8 = options.encoding === 'utf-8';
    this.invalidBytes = invalidBytesMessage(options.encoding);
    this.skipLines = spec?.skip_lines ?? 0;
    this.comment = spec?.comment;
    this.controlRule = spec === undefined ? null : controlRecordRule(spec);
    this.headerRecordRule = spec?.control?.header !== undefined;
    this.observe = options.observe;
    this.lineBase = options.resumeAt !== undefined ? options.resumeAt.line : 0;
    this.byteBase = options.resumeAt?.byte ?? 0;
  }

  /** The header read (`columns`: a profile's), items to follow from line `endLine` and byte `endByte`. */
  start(header: OrderFileHeader, columns: ProfileColumns | null, end: { line: number; byte: number }): void {
    this.header = header;
    this.columnCount = header.columnCount;
    this.errorExport = header.errorExport;
    this.exportAttributes = header.attributes;
    this.columns = columns;
    this.indexes = ORDER_COLUMNS.map((c) => header.positions.get(c) ?? -1);
    [this.iSourceKey, this.iCustomerId, this.iOrderDate, this.iAmount, this.iCurrency] = this.indexes as [
      number,
      number,
      number,
      number,
      number,
    ];
    this.lastEndLine = end.line;
    this.lastEndByte = this.utf8 ? end.byte : null;
  }

  /**
   * A record a profile passes over before the header or anywhere: banner lines, comments (a line
   * that starts with the comment, not a quoted first field that does: "#7" is data).
   */
  passedOver(next: ParsedRecord): boolean {
    const comment = this.comment;
    return (
      this.lineBase + next.startLine <= this.skipLines ||
      (comment !== undefined && (next.record[0] ?? '').trimStart().startsWith(comment) && rawText(next).trimStart().startsWith(comment))
    );
  }

  /** Whether the record is a control record (kept, no data row). */
  takenAsControl(next: ParsedRecord): boolean {
    if (this.controlRule?.fields(next.record) !== true) return false;
    this.controls.push({ lineNo: this.lineBase + next.startLine, fields: [...next.record], text: rawText(next) });
    if (this.observe !== undefined) this.tellPassedOver(next, 'control');
    return true;
  }

  /**
   * A header record before the column-name line (a bank file: `H,20261201,3,1234.50`, then the
   * names): only a `control: header` rule is tested there, so a trailer rule never takes the names.
   */
  takenAsHeaderRecord(next: ParsedRecord): boolean {
    return this.headerRecordRule && this.takenAsControl(next);
  }

  tellPassedOver(next: ParsedRecord, reason: PassedOverReason, value?: string): void {
    const lineNo = this.lineBase + next.startLine;
    this.observe?.passedOver({
      lineNo,
      raw: rawText(next),
      reason: reason === 'when' || reason === 'header' || lineNo > this.skipLines ? reason : 'skip_lines',
      ...(value === undefined ? {} : { value }),
    });
  }

  next(): Promise<IteratorResult<FileItem>> {
    if (this.finished) return Promise.resolve(DONE);
    for (;;) {
      let pending: ParsedRecord | null | Promise<ParsedRecord | null>;
      try {
        pending = this.reader.next();
      } catch (error) {
        return this.afterFailure(error).then((item) => ({ done: false, value: item }));
      }
      if (pending instanceof Promise)
        return pending.then(this.result, (error: unknown) =>
          this.afterFailure(error).then((item) => ({ done: false as const, value: item })),
        );
      if (pending === null) return Promise.resolve(this.result(null));
      const item = this.toItem(pending);
      // a discarded line: on to the next record, without a promise while records are queued
      if (item !== null) return Promise.resolve({ done: false, value: item });
    }
  }

  return(): Promise<IteratorResult<FileItem>> {
    this.finished = true;
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private readonly result = (next: ParsedRecord | null): IteratorResult<FileItem> | Promise<IteratorResult<FileItem>> => {
    if (next === null) {
      this.finished = true;
      this.columns?.mapping.finish();
      return DONE;
    }
    const item = this.toItem(next);
    // a discarded line: on to the next record
    return item === null ? this.next() : { done: false, value: item };
  };

  /** What the parser's failure makes of the rest of the file: one rejected line, or the end. */
  private async afterFailure(error: unknown): Promise<FileItem> {
    const e = error as Error & { code?: string; lines?: number };
    if (e.code !== undefined && LINE_LOCAL_CSV_ERRORS.has(e.code)) {
      // An error confined to one line (a record too large): reject that line with its text and
      // read on from the next one, in every encoding.
      const skipped = await this.reader.skipFailedLine();
      const endByte = this.utf8 ? this.byteBase + skipped.bytes : null;
      const endLine = this.lineBase + skipped.lineNo;
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
      this.lastEndLine = endLine;
      this.lastEndByte = endByte;
      if (skipped.atEnd) this.finished = true;
      return item;
    }
    const startLine = this.lastEndLine + 1;
    this.finished = true;
    return {
      kind: 'reject',
      lineNo: startLine,
      raw: '',
      code: e instanceof GzipDataError ? e.code : `CSV_${(e.code ?? 'ERROR').replace(/^CSV_/, '')}`,
      message: `${csvErrorSummary(e)}; the file could not be read past line ${startLine - 1}`,
      endByte: this.lastEndByte,
      endLine: startLine,
      stopsFile: true,
    };
  }

  /** The item of a record the parser read; null: a line the profile discards. */
  private toItem(next: ParsedRecord): FileItem | null {
    const endLine = this.lineBase + next.endLine;
    const endByte = this.utf8 ? this.byteBase + next.bytes : null;
    this.lastEndLine = endLine;
    this.lastEndByte = endByte;
    const lineNo = this.lineBase + next.startLine;
    const columns = this.columns;
    if (columns === null) return this.builtinItem(next, lineNo, endByte, endLine);
    // a control record (trailer or header) states the file's totals: no data row, whatever
    // skip_lines, comment or `when` say (a header record is often in skip_lines too)
    if (this.takenAsControl(next)) return null;
    if (this.passedOver(next)) {
      this.discarded++;
      if (this.observe !== undefined) this.tellPassedOver(next, 'comment');
      return null;
    }
    return this.profileItem(next, columns, lineNo, endByte, endLine);
  }

  /**
   * A record of the built-in format: the five columns by the header's names. Kept small enough
   * for V8 to inline it into next() (bytecode under its inlining limit): the rare cases, a line to
   * reject, a guarded field, an export's attributes, in functions of their own.
   */
  private builtinItem(next: ParsedRecord, lineNo: number, endByte: number | null, endLine: number): FileItem {
    const record = next.record;
    if (record.length !== this.columnCount || !next.clean) {
      const rejected = this.builtinReject(next, lineNo, endByte, endLine);
      if (rejected !== null) return rejected;
    }
    // Excel's text guard ="000123" is unwrapped in every field (src/input/excel-guard.ts); a line
    // without `=` has none (ParsedRecord.unguarded)
    const fields: Record<OrderColumn, string> =
      next.unguarded && !this.errorExport
        ? {
            source_key: record[this.iSourceKey] ?? '',
            customer_id: record[this.iCustomerId] ?? '',
            order_date: record[this.iOrderDate] ?? '',
            amount: record[this.iAmount] ?? '',
            currency: record[this.iCurrency] ?? '',
          }
        : this.guardedFields(record);
    if (this.observe !== undefined) this.tellFieldsRead(lineNo, record);
    // our own export read back: its attribute columns are the row's attributes again
    const exportAttributes = this.exportAttributes;
    if (exportAttributes !== undefined)
      return new ReadRecord(lineNo, fields, endByte, endLine, next, null, attributesJson(record, exportAttributes, restoreFormula));
    return new ReadRecord(lineNo, fields, endByte, endLine, next);
  }

  /** The rejection of a built-in record with the wrong field count, or text that is not valid or holds a NUL; null: none. */
  private builtinReject(next: ParsedRecord, lineNo: number, endByte: number | null, endLine: number): FileReject | null {
    const record = next.record;
    const columnCount = this.columnCount;
    if (record.length !== columnCount) {
      const message = `expected ${columnCount} fields as in the header, found ${record.length}`;
      return reject(lineNo, next, 'PARSE_FIELD_COUNT', message, endByte, endLine);
    }
    const indexes = this.indexes;
    // Our own export carries the rejected line's raw text (with its U+FFFD) in a column that
    // is not loaded: only the order columns it holds must be valid text. Every character of a
    // line other than its delimiters and quotes is in one of its fields.
    if (
      !next.clean &&
      (this.utf8 || this.invalidBytes !== null) &&
      (this.errorExport ? indexes.some((i) => record[i]?.includes('\uFFFD') === true) : anyIncludes(record, '\uFFFD'))
    ) {
      const message = this.invalidBytes ?? 'the line is not valid UTF-8 (use --encoding shift_jis for a Shift_JIS file)';
      return reject(lineNo, next, 'PARSE_ENCODING', message, endByte, endLine);
    }
    if (!next.clean && anyIncludes(record, '\u0000')) return reject(lineNo, next, 'PARSE_NUL_BYTE', NUL_BYTE_MESSAGE, endByte, endLine);
    return null;
  }

  /** The five fields of a built-in record that may hold Excel's text guard, or an export's formula guard. */
  private guardedFields(record: string[]): Record<OrderColumn, string> {
    const { iSourceKey, iCustomerId, iOrderDate, iAmount, iCurrency } = this;
    return this.errorExport
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
  }

  /** `preview`'s fields of a built-in record: as written. */
  private tellFieldsRead(lineNo: number, record: string[]): void {
    this.observe?.fieldsRead(lineNo, {
      source_key: record[this.iSourceKey] ?? '',
      customer_id: record[this.iCustomerId] ?? '',
      order_date: record[this.iOrderDate] ?? '',
      amount: record[this.iAmount] ?? '',
      currency: record[this.iCurrency] ?? '',
    });
  }

  /** A record read through the profile: its columns found, `when` applied, mapped onto the five fields. */
  private profileItem(
    next: ParsedRecord,
    columns: ProfileColumns,
    lineNo: number,
    endByte: number | null,
    endLine: number,
  ): FileItem | null {
    const record = next.record;
    // `when` first: a trailer with fewer fields (TOTAL|4|16399.50) is not an order, not a field-count error
    if (columns.when >= 0 && !columns.mapping.keep(record[columns.when] ?? '')) {
      this.discarded++;
      this.discardedByWhen++;
      if (this.observe !== undefined) this.tellPassedOver(next, 'when', record[columns.when] ?? '');
      return null;
    }
    const count = columns.header.columnCount;
    if (count > 0 ? record.length !== count : record.length < columns.needed) {
      const expected = count > 0 ? `${count} fields as in the header` : `at least ${columns.needed} fields`;
      return reject(lineNo, next, 'PARSE_FIELD_COUNT', `expected ${expected}, found ${record.length}`, endByte, endLine);
    }
    if (!next.clean && (this.utf8 || this.invalidBytes !== null) && anyIncludes(record, '\uFFFD')) {
      const message = this.invalidBytes ?? 'the line is not valid UTF-8 (set encoding: in the profile)';
      return reject(lineNo, next, 'PARSE_ENCODING', message, endByte, endLine);
    }
    if (!next.clean && anyIncludes(record, '\u0000')) return reject(lineNo, next, 'PARSE_NUL_BYTE', NUL_BYTE_MESSAGE, endByte, endLine);
    if (this.observe !== undefined) {
      const indexes = columns.indexes;
      const raw = {} as Record<OrderColumn, string | null>;
      for (const c of ORDER_COLUMNS) raw[c] = indexes[c] < 0 ? null : (record[indexes[c]] ?? '');
      this.observe.fieldsRead(lineNo, raw);
    }
    const fields = columns.mapping.recordFields(record, columns.order);
    const kept = columns.attributes;
    const attributes = kept === null ? null : attributesJson(record, typeof kept === 'function' ? kept(record.length) : kept);
    const mapping = columns.mapping;
    return new ReadRecord(lineNo, fields, endByte, endLine, next, mapping.lastProblem(), attributes, mapping.lastOrder());
  }
}
