/**
 * The xlsx format reader (`format: xlsx`): one sheet of a workbook (`sheet:` by name or 1-based
 * position, default the first), its header row (the first row with a cell after `skip_lines`
 * rows; `header: false`: none), each field by header name, column letter or number. A record's
 * line number is its row number (in the error log and `errors`), its raw text the CSV of its
 * cells. Rows have no byte offset (the workbook is a zip): a resumed load reads the sheet again
 * and passes over the rows its committed batches hold (src/input/after-line.ts). Empty rows are
 * no records; a cell that is empty or merged over is a missing value.
 */
import { RunAbortedError, UserError } from '../../errors.js';
import { openByteSource } from '../gzip.js';
import type { FileItem, FileRecord, FileReject, OrderFile, OrderFileOptions } from '../order-file.js';
import { ORDER_COLUMNS, type OrderColumn, type ParsedOrder } from '../order-record.js';
import { attributesJson } from '../profile/attributes.js';
import type { LoadProfile } from '../profile/load-profile.js';
import { compileMapping, type Mapping, type MappingProblem } from '../profile/mapping.js';
import { FIXED_RECORD_LIMIT } from '../profile/schema.js';
import { loggedText } from './byte-lines.js';
import { columnLetters, csvLine, type CellText } from './xlsx-cells.js';
import { sheetColumns, type SheetColumns } from './xlsx-columns.js';
import { sheetControls, type SheetControls } from './xlsx-control.js';
import { damage, openSheet, type SheetRow } from './xlsx-sheet.js';

class SheetRecord implements FileRecord {
  readonly kind = 'record' as const;
  readonly endByte = null;
  constructor(
    readonly lineNo: number,
    readonly fields: Record<OrderColumn, string>,
    private readonly texts: readonly string[],
    readonly problem: MappingProblem | null,
    readonly attributes: string | null,
    readonly order: ParsedOrder | null,
  ) {}

  get endLine(): number {
    return this.lineNo;
  }

  get raw(): string {
    return loggedText(csvLine(this.texts));
  }

  toJSON() {
    return { kind: this.kind, lineNo: this.lineNo, raw: this.raw, fields: this.fields, endByte: this.endByte, endLine: this.endLine };
  }
}

const textsOf = (cells: ReadonlyArray<CellText | undefined>): string[] => Array.from(cells, (c) => c?.text ?? '');
const isEmptyRow = (cells: ReadonlyArray<CellText | undefined>): boolean => cells.every((c) => c === undefined || c.text.trim() === '');

/** A profile without order_date's masks: a date cell's text is already YYYY-MM-DD. */
function withoutDateMasks(profile: LoadProfile): LoadProfile | null {
  const { date, ...rest } = profile.spec.columns.order_date;
  if (date === undefined) return null;
  return { ...profile, spec: { ...profile.spec, columns: { ...profile.spec.columns, order_date: rest } } };
}

type PassOver = (row: SheetRow, reason: 'skip_lines' | 'header' | 'control') => void;

/**
 * The rows above the data: `skip_lines` rows, a control row above the column names, then the
 * header row's names or, with `header: false`, the first data row. `seen`: each row's number as read.
 */
async function readHead(
  rows: AsyncGenerator<SheetRow>,
  spec: LoadProfile['spec'],
  controls: SheetControls | null,
  passOver: PassOver,
  seen: (rowNo: number) => void,
): Promise<{ names: string[]; firstData: SheetRow | null }> {
  for (;;) {
    const next = await rows.next();
    if (next.done === true) return { names: [], firstData: null };
    const row = next.value;
    seen(row.rowNo);
    // a control row above the column names (a header row: the sheet's totals), whatever skip_lines says
    if (controls !== null && !isEmptyRow(row.cells) && controls.aboveNames(row.rowNo, textsOf(row.cells))) {
      passOver(row, 'control');
      continue;
    }
    if (row.rowNo <= spec.skip_lines || (spec.header !== false && isEmptyRow(row.cells))) {
      if (!isEmptyRow(row.cells)) passOver(row, 'skip_lines');
      continue;
    }
    if (spec.header === false) return { names: [], firstData: row };
    passOver(row, 'header');
    return { names: textsOf(row.cells).map((n) => n.trim()), firstData: null };
  }
}

/** Open one sheet of a workbook read through its profile (openOrderFile's `format: xlsx`). */
export async function openXlsxFile(path: string, size: number, options: OrderFileOptions, profile: LoadProfile): Promise<OrderFile> {
  if (options.gzip === true)
    throw new UserError(`${path}: a gzip file: an xlsx workbook is a zip archive already; decompress it (gunzip) and load the .xlsx`);
  const spec = profile.spec;
  let closed = false;
  const stopped = () => closed || options.signal?.aborted === true;
  const source = openByteSource(options.read?.file ?? path, { ...options.read, gzip: false, from: 0 });
  let opened: Awaited<ReturnType<typeof openSheet>>;
  try {
    opened = await openSheet(path, source, spec.sheet ?? 1, stopped);
  } catch (error) {
    source.close();
    throw error;
  }
  const shut = () => {
    opened.close();
    source.close();
  };
  const where = `sheet ${JSON.stringify(opened.sheet.name)} of ${path}`;
  const rows = opened.rows;
  const observe = options.observe;
  let discarded = 0;
  let lastRow = 0;
  const passOver: PassOver = (row, reason) => {
    observe?.passedOver({ lineNo: row.rowNo, raw: loggedText(csvLine(textsOf(row.cells))), reason });
  };
  let names: string[] = [];
  const controls = sheetControls(spec, () => names);

  // the header: the first row with a cell after skip_lines rows (read before anything is staged)
  let firstData: SheetRow | null = null;
  try {
    ({ names, firstData } = await readHead(rows, spec, controls, passOver, (rowNo) => (lastRow = rowNo)));
  } catch (error) {
    shut();
    if (error instanceof UserError || error instanceof RunAbortedError) throw error;
    throw new UserError(`${where}: cannot read the sheet (${damage(error)})`, { cause: error });
  }
  if (spec.header !== false && names.length === 0) {
    shut();
    if (options.signal?.aborted === true) throw new RunAbortedError(`interrupted while reading the header of ${path}`, 'interrupted');
    throw new UserError(
      `${where}: the sheet has no header row (no row with a cell${spec.skip_lines > 0 ? ` after row ${spec.skip_lines}` : ''})`,
    );
  }
  let columns: SheetColumns;
  try {
    columns = sheetColumns(names, where, profile);
  } catch (error) {
    shut();
    throw error;
  }
  if (columns.unused.length > 0)
    options.onWarning?.(
      `${where}: columns not in the profile are ignored: ${columns.unused.join(', ')} (extra: ignore says so without a warning)`,
    );
  const warn = options.onWarning === undefined ? undefined : (m: string) => options.onWarning?.(`${path}: ${m}`);
  const mapping = compileMapping(profile, columns.found, warn, path);
  const plain = withoutDateMasks(profile);
  const dateMapping = plain === null ? mapping : compileMapping(plain, columns.found, undefined, path);

  return {
    path,
    size,
    header: {
      names,
      errorExport: false,
      positions: new Map(ORDER_COLUMNS.filter((c) => columns.indexes[c] >= 0).map((c) => [c, columns.indexes[c]])),
      extraColumns: columns.unused,
      columnCount: names.length,
      ...(columns.attributes !== null && typeof columns.attributes !== 'function' ? { attributes: columns.attributes } : {}),
    },
    items: items(),
    bytesRead: () => source.fileBytesRead(),
    discarded: () => discarded,
    controlRecords: () => controls?.records ?? [],
    close() {
      closed = true;
      shut();
    },
  };

  async function* items(): AsyncGenerator<FileItem> {
    try {
      if (firstData !== null) {
        const item = readRow(firstData);
        if (item !== null) yield item;
      }
      for (;;) {
        const next = await rows.next();
        if (next.done === true) break;
        lastRow = next.value.rowNo;
        const item = readRow(next.value);
        if (item !== null) yield item;
      }
      mapping.finish();
    } catch (error) {
      if (error instanceof RunAbortedError) throw error;
      if (stopped()) return;
      yield {
        kind: 'reject',
        lineNo: lastRow + 1,
        raw: '',
        code: 'XLSX_DAMAGED',
        message: `${where}: the workbook could not be read past row ${lastRow} (${damage(error)})`,
        endByte: null,
        endLine: lastRow + 1,
        stopsFile: true,
      } satisfies FileReject;
    }
  }

  function readRow(row: SheetRow): FileItem | null {
    const { rowNo, cells } = row;
    if (isEmptyRow(cells)) return null;
    const texts = textsOf(cells);
    // a control row (trailer or header) states the sheet's totals: no data row, whatever `when` says
    if (controls?.taken(rowNo, texts) === true) {
      observe?.passedOver({ lineNo: rowNo, raw: loggedText(csvLine(texts)), reason: 'control' });
      return null;
    }
    const reject = (code: string, message: string): FileReject => ({
      kind: 'reject',
      lineNo: rowNo,
      raw: loggedText(csvLine(texts)),
      code,
      message,
      endByte: null,
      endLine: rowNo,
      stopsFile: false,
    });
    if (texts.reduce((n, t) => n + t.length, 0) > FIXED_RECORD_LIMIT)
      return reject(
        'CSV_MAX_RECORD_SIZE',
        `the row holds more than ${FIXED_RECORD_LIMIT} characters, the longest record read; the row was skipped`,
      );
    const at = (i: number): string => (i < 0 ? '' : (texts[i] ?? ''));
    for (const i of [...Object.values(columns.indexes), columns.when]) {
      const problem = i < 0 ? undefined : cells[i]?.problem;
      if (problem !== undefined) return reject('PARSE_XLSX_CELL', `column ${columnLetters(i + 1)}${nameOf(i)}: ${problem}`);
    }
    if (texts.some((t) => t.includes('\u0000')))
      return reject('PARSE_NUL_BYTE', 'a cell holds a NUL character, which no database text value can hold');
    if (spec.when !== undefined && !mapping.keep(at(columns.when))) {
      discarded++;
      observe?.passedOver({ lineNo: rowNo, raw: loggedText(csvLine(texts)), reason: 'when', value: at(columns.when) });
      return null;
    }
    if (observe !== undefined) {
      const raw = {} as Record<OrderColumn, string | null>;
      for (const c of ORDER_COLUMNS) raw[c] = columns.indexes[c] < 0 ? null : at(columns.indexes[c]);
      observe.fieldsRead(rowNo, raw);
    }
    const dateIndex = columns.indexes.order_date;
    const byMapping: Mapping = dateIndex >= 0 && cells[dateIndex]?.date === true ? dateMapping : mapping;
    const mapped = byMapping.map((c) => at(columns.indexes[c]));
    const kept =
      columns.attributes === null ? null : typeof columns.attributes === 'function' ? columns.attributes(texts.length) : columns.attributes;
    const attributes = kept === null ? null : attributesJson(texts, kept);
    return new SheetRecord(rowNo, mapped.fields, texts, mapped.problem, attributes, byMapping.lastOrder());
  }

  function nameOf(i: number): string {
    const name = names[i];
    return name === undefined || name === '' ? '' : ` (${JSON.stringify(name)})`;
  }
}
