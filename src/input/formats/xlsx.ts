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
import { openByteSource, type ByteSource } from '../gzip.js';
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
import { damage, openSheet, type SheetReading, type SheetRow } from './xlsx-sheet.js';

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

/** What reading a data row needs, and what the rows read so far left. */
interface SheetContext {
  where: string;
  spec: LoadProfile['spec'];
  observe: OrderFileOptions['observe'];
  names: string[];
  controls: SheetControls | null;
  columns: SheetColumns;
  mapping: Mapping;
  /** The mapping of a row whose date cell is date-formatted (its text is already YYYY-MM-DD). */
  dateMapping: Mapping;
  stopped: () => boolean;
  discarded: number;
  lastRow: number;
}

/** The sheet asked for opened (the byte source closed if it cannot be). */
async function openSheetOf(path: string, source: ByteSource, spec: LoadProfile['spec'], stopped: () => boolean): Promise<SheetReading> {
  try {
    return await openSheet(path, source, spec.sheet ?? 1, stopped);
  } catch (error) {
    source.close();
    throw error;
  }
}

/** The rows above the data read, or the sheet refused (and shut) when they cannot be or hold no header. */
async function headOf(
  opened: SheetReading,
  path: string,
  where: string,
  spec: LoadProfile['spec'],
  options: OrderFileOptions,
  shut: () => void,
): Promise<{ names: string[]; firstData: SheetRow | null; controls: SheetControls | null; lastRow: number }> {
  const passOver: PassOver = (row, reason) => {
    options.observe?.passedOver({ lineNo: row.rowNo, raw: loggedText(csvLine(textsOf(row.cells))), reason });
  };
  const head = { names: [] as string[], firstData: null as SheetRow | null, lastRow: 0 };
  const controls = sheetControls(spec, () => head.names);
  // the header: the first row with a cell after skip_lines rows (read before anything is staged)
  try {
    ({ names: head.names, firstData: head.firstData } = await readHead(
      opened.rows,
      spec,
      controls,
      passOver,
      (rowNo) => (head.lastRow = rowNo),
    ));
  } catch (error) {
    shut();
    if (error instanceof UserError || error instanceof RunAbortedError) throw error;
    throw new UserError(`${where}: cannot read the sheet (${damage(error)})`, { cause: error });
  }
  if (spec.header !== false && head.names.length === 0) {
    shut();
    if (options.signal?.aborted === true) throw new RunAbortedError(`interrupted while reading the header of ${path}`, 'interrupted');
    throw new UserError(
      `${where}: the sheet has no header row (no row with a cell${spec.skip_lines > 0 ? ` after row ${spec.skip_lines}` : ''})`,
    );
  }
  return { ...head, controls };
}

/** The profile's columns found among the header's names (the sheet shut when one is not there). */
function columnsOf(names: string[], where: string, profile: LoadProfile, options: OrderFileOptions, shut: () => void): SheetColumns {
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
  return columns;
}

/** Open one sheet of a workbook read through its profile (openOrderFile's `format: xlsx`). */
export async function openXlsxFile(path: string, size: number, options: OrderFileOptions, profile: LoadProfile): Promise<OrderFile> {
  if (options.gzip === true)
    throw new UserError(`${path}: a gzip file: an xlsx workbook is a zip archive already; decompress it (gunzip) and load the .xlsx`);
  const spec = profile.spec;
  let closed = false;
  const stopped = () => closed || options.signal?.aborted === true;
  const source = openByteSource(options.read?.file ?? path, { ...options.read, gzip: false, from: 0 });
  const opened = await openSheetOf(path, source, spec, stopped);
  const shut = () => {
    opened.close();
    source.close();
  };
  const where = `sheet ${JSON.stringify(opened.sheet.name)} of ${path}`;
  const { names, firstData, controls, lastRow } = await headOf(opened, path, where, spec, options, shut);
  const columns = columnsOf(names, where, profile, options, shut);
  const warn = options.onWarning === undefined ? undefined : (m: string) => options.onWarning?.(`${path}: ${m}`);
  const mapping = compileMapping(profile, columns.found, warn, path);
  const plain = withoutDateMasks(profile);
  const dateMapping = plain === null ? mapping : compileMapping(plain, columns.found, undefined, path);
  const at: SheetContext = {
    where,
    spec,
    observe: options.observe,
    names,
    controls,
    columns,
    mapping,
    dateMapping,
    stopped,
    discarded: 0,
    lastRow,
  };

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
    items: sheetItems(at, opened.rows, firstData),
    bytesRead: () => source.fileBytesRead(),
    discarded: () => at.discarded,
    controlRecords: () => controls?.records ?? [],
    close() {
      closed = true;
      shut();
    },
  };
}

/** The data rows' items, from `firstData` (the first data row when read with the head) on. */
async function* sheetItems(at: SheetContext, rows: AsyncGenerator<SheetRow>, firstData: SheetRow | null): AsyncGenerator<FileItem> {
  try {
    if (firstData !== null) {
      const item = readRow(at, firstData);
      if (item !== null) yield item;
    }
    for (;;) {
      const next = await rows.next();
      if (next.done === true) break;
      at.lastRow = next.value.rowNo;
      const item = readRow(at, next.value);
      if (item !== null) yield item;
    }
    at.mapping.finish();
  } catch (error) {
    if (error instanceof RunAbortedError) throw error;
    if (at.stopped()) return;
    yield {
      kind: 'reject',
      lineNo: at.lastRow + 1,
      raw: '',
      code: 'XLSX_DAMAGED',
      message: `${at.where}: the workbook could not be read past row ${at.lastRow} (${damage(error)})`,
      endByte: null,
      endLine: at.lastRow + 1,
      stopsFile: true,
    } satisfies FileReject;
  }
}

/** Why a data row cannot be read (its rejection), or null. */
function rowProblem(at: SheetContext, { rowNo, cells }: SheetRow, texts: string[]): FileReject | null {
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
  const { columns } = at;
  for (const i of [...Object.values(columns.indexes), columns.when]) {
    const problem = i < 0 ? undefined : cells[i]?.problem;
    if (problem !== undefined) return reject('PARSE_XLSX_CELL', `column ${columnLetters(i + 1)}${nameOf(at.names, i)}: ${problem}`);
  }
  if (texts.some((t) => t.includes('\u0000')))
    return reject('PARSE_NUL_BYTE', 'a cell holds a NUL character, which no database text value can hold');
  return null;
}

/** One row read: its record or rejection, or null (an empty or control row, or one `when` discards). */
function readRow(at: SheetContext, row: SheetRow): FileItem | null {
  const { rowNo, cells } = row;
  if (isEmptyRow(cells)) return null;
  const texts = textsOf(cells);
  const { columns, observe } = at;
  // a control row (trailer or header) states the sheet's totals: no data row, whatever `when` says
  if (at.controls?.taken(rowNo, texts) === true) {
    observe?.passedOver({ lineNo: rowNo, raw: loggedText(csvLine(texts)), reason: 'control' });
    return null;
  }
  const problem = rowProblem(at, row, texts);
  if (problem !== null) return problem;
  const cell = (i: number): string => (i < 0 ? '' : (texts[i] ?? ''));
  if (at.spec.when !== undefined && !at.mapping.keep(cell(columns.when))) {
    at.discarded++;
    observe?.passedOver({ lineNo: rowNo, raw: loggedText(csvLine(texts)), reason: 'when', value: cell(columns.when) });
    return null;
  }
  if (observe !== undefined) {
    const raw = {} as Record<OrderColumn, string | null>;
    for (const c of ORDER_COLUMNS) raw[c] = columns.indexes[c] < 0 ? null : cell(columns.indexes[c]);
    observe.fieldsRead(rowNo, raw);
  }
  const dateIndex = columns.indexes.order_date;
  const byMapping: Mapping = dateIndex >= 0 && cells[dateIndex]?.date === true ? at.dateMapping : at.mapping;
  const mapped = byMapping.map((c) => cell(columns.indexes[c]));
  const kept =
    columns.attributes === null ? null : typeof columns.attributes === 'function' ? columns.attributes(texts.length) : columns.attributes;
  const attributes = kept === null ? null : attributesJson(texts, kept);
  return new SheetRecord(rowNo, mapped.fields, texts, mapped.problem, attributes, byMapping.lastOrder());
}

function nameOf(names: readonly string[], i: number): string {
  const name = names[i];
  return name === undefined || name === '' ? '' : ` (${JSON.stringify(name)})`;
}
