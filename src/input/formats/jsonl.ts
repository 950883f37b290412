/**
 * The JSON Lines format reader (`format: jsonl`): one JSON object per line, each field by a path
 * into it (src/input/formats/json-path.ts), numbers as written (src/input/formats/json-text.ts).
 * Works on the file's bytes, so every line has a byte offset to resume at, gzip or not. A line
 * that is not JSON, not an object, lacks a mapped path or is not UTF-8 is a PARSE_* rejection of
 * that line with its text; the rest loads.
 */
import { controlRecordRule, type ControlRecord } from '../control/control-record.js';
import { openByteSource } from '../gzip.js';
import type { FileItem, FileRecord, FileReject, OrderFile, OrderFileOptions } from '../order-file.js';
import { ORDER_COLUMNS, type OrderColumn, type ParsedOrder } from '../order-record.js';
import type { LoadProfile } from '../profile/load-profile.js';
import { compileMapping, type Mapping, type MappingProblem } from '../profile/mapping.js';
import { FIXED_RECORD_LIMIT } from '../profile/schema.js';
import { byteLines, readFailure, loggedText, type ByteLine } from './byte-lines.js';
import { compileJsonFields, readJsonLine } from './json-fields.js';
import { parseJsonText, type JsonValue } from './json-text.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The profile's control record test (null: none). */
type ControlRule = ReturnType<typeof controlRecordRule>;

class JsonLineRecord implements FileRecord {
  readonly kind = 'record' as const;
  constructor(
    readonly lineNo: number,
    readonly fields: Record<OrderColumn, string>,
    readonly endByte: number,
    private readonly text: string,
    readonly problem: MappingProblem | null,
    readonly attributes: string | null,
    readonly order: ParsedOrder | null,
  ) {}

  get endLine(): number {
    return this.lineNo;
  }

  get raw(): string {
    return loggedText(this.text);
  }

  toJSON() {
    return { kind: this.kind, lineNo: this.lineNo, raw: this.raw, fields: this.fields, endByte: this.endByte, endLine: this.endLine };
  }
}

/** What reading one line needs: the profile compiled, and what the lines read so far left. */
interface JsonLinesContext {
  compiled: ReturnType<typeof compileJsonFields>;
  mapping: Mapping;
  hasWhen: boolean;
  controlRule: ControlRule;
  controls: ControlRecord[];
  observe: OrderFileOptions['observe'];
  discarded: number;
}

const reject = (lineNo: number, raw: string, endByte: number, code: string, message: string): FileReject => ({
  kind: 'reject',
  lineNo,
  raw: loggedText(raw),
  code,
  message,
  endByte,
  endLine: lineNo,
  stopsFile: false,
});

/** Whether the line is the control record (a trailer or header object): no data row, kept for the check. */
function isControl(controlRule: ControlRule, text: string): boolean {
  if (controlRule === null) return false;
  let root: JsonValue;
  try {
    root = parseJsonText(text);
  } catch {
    return false; // not JSON: the data line's reading rejects it
  }
  return controlRule.json(root);
}

/** One line read: its record or rejection, or null (a blank, control or `when`-discarded line). */
function readLine(at: JsonLinesContext, { line, lineNo, endByte, tooLong }: ByteLine): FileItem | null {
  let text: string;
  try {
    text = utf8.decode(line);
  } catch {
    return reject(lineNo, line.toString('utf8'), endByte, 'PARSE_ENCODING', 'the line is not valid UTF-8 (JSON text is UTF-8)');
  }
  if (text.trim() === '') return null; // a blank line: no record
  if (tooLong)
    return reject(
      lineNo,
      text,
      endByte,
      'CSV_MAX_RECORD_SIZE',
      `the line is longer than the longest record read (${FIXED_RECORD_LIMIT} bytes); the line was skipped`,
    );
  if (isControl(at.controlRule, text)) {
    at.controls.push({ lineNo, fields: null, text });
    at.observe?.passedOver({ lineNo, raw: loggedText(text), reason: 'control' });
    return null;
  }
  const read = readJsonLine(text, at.compiled);
  if ('code' in read) return reject(lineNo, text, endByte, read.code, read.message);
  const { values } = read;
  if ([...values.values()].some((v) => v.includes('\u0000')))
    return reject(
      lineNo,
      text,
      endByte,
      'PARSE_NUL_BYTE',
      'a field holds a NUL character (\\u0000), which no database text value can hold',
    );
  if (at.hasWhen && !at.mapping.keep(values.get('when') ?? '')) {
    at.discarded++;
    at.observe?.passedOver({ lineNo, raw: loggedText(text), reason: 'when', value: values.get('when') ?? '' });
    return null;
  }
  if (at.observe !== undefined) {
    const raw = {} as Record<OrderColumn, string | null>;
    for (const c of ORDER_COLUMNS) raw[c] = values.get(c) ?? null;
    at.observe.fieldsRead(lineNo, raw);
  }
  const mapped = at.mapping.map((c) => values.get(c) ?? '');
  return new JsonLineRecord(lineNo, mapped.fields, endByte, text, mapped.problem, read.attributes, at.mapping.lastOrder());
}

/** Open a JSON Lines file read through its profile (openOrderFile's `format: jsonl`). */
export function openJsonLinesFile(path: string, size: number, options: OrderFileOptions, profile: LoadProfile): OrderFile {
  const from = options.resumeAt?.byte ?? 0;
  const source = openByteSource(options.read?.file ?? path, { ...options.read, gzip: options.gzip === true, from });
  const at: JsonLinesContext = {
    compiled: compileJsonFields(profile),
    mapping: compileMapping(profile, {}, options.onWarning === undefined ? undefined : (m) => options.onWarning?.(`${path}: ${m}`), path),
    hasWhen: profile.spec.when !== undefined,
    controlRule: controlRecordRule(profile.spec),
    controls: [],
    observe: options.observe,
    discarded: 0,
  };
  let closed = false;
  let lastLine = options.resumeAt?.line ?? 0;
  let lastByte = from;

  async function* items(): AsyncGenerator<FileItem> {
    try {
      const lines = byteLines(
        source.chunks,
        { byte: from, line: options.resumeAt?.line ?? 0 },
        FIXED_RECORD_LIMIT,
        () => closed || options.signal?.aborted === true,
      );
      for await (const line of lines) {
        lastLine = line.lineNo;
        lastByte = line.endByte;
        const item = readLine(at, line);
        if (item !== null) yield item;
      }
      at.mapping.finish();
    } catch (error) {
      yield readFailure(error, lastLine, lastByte);
    }
  }

  return {
    path,
    size,
    header: { names: [], errorExport: false, positions: new Map(), extraColumns: [], columnCount: 0 },
    items: items(),
    bytesRead: () => source.fileBytesRead(),
    discarded: () => at.discarded,
    controlRecords: () => at.controls,
    close() {
      closed = true;
      source.close();
    },
  };
}
