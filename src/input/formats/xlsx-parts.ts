/**
 * The parts of an xlsx workbook in whatever order its zip holds them, and the one sheet asked
 * for, read once everything it depends on is known. exceljs's WorkbookReader parses each part
 * (its part parsers are used as they are), but its own loop over the zip's entries is not: it
 * iterates unzipper's parser through a helper that ends when unzipper emits 'end', which unzipper
 * does as soon as it has parsed the archive's end — entries it parsed ahead while the loop was
 * busy (writing a sheet to a temporary file) are still in the stream's buffer and were never
 * seen. On a loaded machine that lost the workbook part (exceljs writes it last: "Cannot read
 * properties of undefined (reading 'sheets')"), or the shared strings and styles (Excel writes
 * them after the sheets: every text cell empty, dates as serial numbers, no error). Here the
 * entries are read with Node's stream iterator, which reads the buffer to its end. A sheet met
 * before the parts it needs (the workbook, its relationships, the shared strings and styles the
 * relationships name) is kept in a temporary file and read from there after them, as exceljs
 * does (its folder removed once the file is open); the other sheets, once the workbook says which
 * is asked for, are read past unkept.
 */
import { createReadStream, createWriteStream, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type unzipper from 'unzipper';
import { SharedStrings } from './xlsx-strings.js';

type Entry = unzipper.Entry;

export interface StreamCell {
  value: unknown;
  numFmt?: string | undefined;
}
export interface StreamRow {
  number: number;
  eachCell(options: { includeEmpty: boolean }, f: (cell: StreamCell, col: number) => void): void;
}
export interface StreamSheet extends AsyncIterable<StreamRow> {
  id?: number;
  name?: string;
  state?: string;
}
interface Relationship {
  Id: string;
  Type: string;
  Target: string;
}
interface SheetModel {
  name: string;
  rId: string;
  id?: number;
  state?: string;
}

/** exceljs's WorkbookReader as this module uses it: its part parsers and what they leave on it. */
export interface PartParsers {
  model?: { sheets?: SheetModel[] };
  properties?: { model?: { date1904?: boolean } };
  workbookRels?: Relationship[];
  _parseRels(entry: Readable): Promise<void>;
  _parseWorkbook(entry: Readable): Promise<void>;
  /** With `sharedStrings: 'emit'`: each shared string in order, kept by the caller (SharedStrings). */
  _parseSharedStrings(entry: Readable): AsyncIterable<{ text: unknown }>;
  _parseStyles(entry: Readable): Promise<void>;
  _parseWorksheet(iterator: AsyncIterable<unknown>, sheetNo: string): Iterable<{ value: StreamSheet }>;
}

/** The sheet a profile names: its name, or its 1-based position (default: the first). */
export type SheetChoice = string | number;

export type SheetFound =
  | {
      kind: 'sheet';
      sheet: StreamSheet;
      /** The workbook's shared strings, which the sheet's cells refer to by index (null: the workbook has none). */
      strings: SharedStrings | null;
      name: string;
      position: number;
      /** Reads the rest of the zip through (every byte seen by the run's tap). */
      finish(): Promise<void>;
      /** Closes the kept sheet's file if it is read from one (its rows left unread). */
      close: () => void;
    }
  | { kind: 'missing'; names: string[] }
  /** No workbook part (xl/workbook.xml and its relationships) or no worksheet part in the zip. */
  | { kind: 'not-workbook'; lacks: string }
  /** Parts the workbook's relationships name (shared strings, styles) that the zip does not hold: each as its path and what it holds. */
  | { kind: 'incomplete'; lacks: Array<{ path: string; holds: string }> };

const SHEET_PART = /^xl\/worksheets\/[^/]+\.xml$/;
const RELATION = (type: string) => `/officeDocument/2006/relationships/${type}`;

/** A part named by the workbook's relationships, as its path in the zip. */
function partPath(target: string): string {
  return target.startsWith('/') ? target.slice(1) : `xl/${target}`;
}

/**
 * The sheet `want` of the workbook read from `input` by `parts` (a fresh WorkbookReader):
 * resolves once its rows can be read, the zip read up to it.
 */
export async function findSheet(input: Readable, parts: PartParsers, want: SheetChoice): Promise<SheetFound> {
  const { default: unzip } = await import('unzipper');
  const walk = new SheetWalk(zipEntries(unzip, input), parts, want);
  try {
    return await walk.walk();
  } finally {
    // a kept sheet is read from its open descriptor: nothing is left behind however its reading ends
    walk.cleanUp();
  }
}

/** The entries of the zip read from `input`, each as it comes (Node's stream iterator: to the buffer's end). */
function zipEntries(unzip: typeof unzipper, input: Readable): AsyncIterator<Entry> {
  const zip = unzip.Parse({ forceStream: true });
  input.pipe(zip);
  input.on('error', (error) => zip.destroy(error));
  // a zip that breaks off (FILE_ENDED) fails the entry it breaks, whether read yet or not (one all
  // of whose bytes came stays readable): whatever waits on it ends
  let current: Entry | null = null;
  let failed: Error | null = null;
  const fail = (entry: Entry | null) => {
    if (failed !== null && entry !== null && !entry.writableFinished) entry.destroy(failed);
  };
  zip.on('error', (error: Error) => {
    failed = error;
    fail(current);
  });
  const entries = zip[Symbol.asyncIterator]() as AsyncIterator<Entry>;
  return {
    async next() {
      const next = await entries.next();
      current = next.done === true ? null : next.value;
      fail(current);
      return next;
    },
  };
}

/** One pass over a workbook's entries, looking for one sheet: the parts read so far and the sheets kept. */
class SheetWalk {
  private readonly kept = new Map<string, string>();
  private folder: string | null = null;
  private stylesRead = false;
  private strings: SharedStrings | null = null;
  private sheetsSeen = 0;

  constructor(
    private readonly entries: AsyncIterator<Entry>,
    private readonly parts: PartParsers,
    private readonly want: SheetChoice,
  ) {}

  cleanUp(): void {
    if (this.folder !== null) rmSync(this.folder, { recursive: true, force: true });
    this.folder = null;
  }

  async walk(): Promise<SheetFound> {
    const parts = this.parts;
    for (;;) {
      const next = await this.entries.next();
      if (next.done === true) break;
      const entry = next.value;
      const path = entry.path;
      if (path === 'xl/_rels/workbook.xml.rels') await parts._parseRels(entry);
      else if (path === 'xl/workbook.xml') await parts._parseWorkbook(entry);
      else if (path === 'xl/sharedStrings.xml') {
        const strings = new SharedStrings();
        for await (const shared of parts._parseSharedStrings(entry)) strings.add(shared.text);
        this.strings = strings;
      } else if (path === 'xl/styles.xml') {
        await parts._parseStyles(entry);
        this.stylesRead = true;
      } else if (SHEET_PART.test(path)) {
        this.sheetsSeen++;
        const at = this.wanted();
        if (at === null || at?.path === null) return { kind: 'missing', names: sheetNames(parts) };
        if (at === undefined || at.path === path) {
          // the sheet asked for, or one that may be: read now if its cells can be, else kept
          if (at !== undefined && this.ready()) return this.found(entry, path, at);
          await this.keep(entry, path);
          continue;
        }
      }
      // what the parsers left unread, and every other part: read past
      await drain(entry);
    }
    return this.atEnd();
  }

  /** The zip read to its end without the sheet's part being readable as it came: the sheet kept, or why none. */
  private atEnd(): SheetFound {
    if (this.sheetsSeen === 0) return { kind: 'not-workbook', lacks: 'no worksheet' };
    const at = this.wanted();
    if (at === undefined) return { kind: 'not-workbook', lacks: 'no workbook part (xl/workbook.xml and its relationships)' };
    const file = at === null || at.path === null ? undefined : this.kept.get(at.path);
    if (at === null || at.path === null || file === undefined) return { kind: 'missing', names: sheetNames(this.parts) };
    // read without them, its text cells were empty and its date cells numbers, each row loaded or
    // rejected as if the workbook held that
    if (!this.ready()) return { kind: 'incomplete', lacks: this.unread() };
    return this.found(createReadStream('', { fd: openSync(file, 'r') }), at.path, at);
  }

  private relation(type: string): Relationship | undefined {
    return this.parts.workbookRels?.find((r) => r.Type.endsWith(RELATION(type)));
  }

  /** Every part a sheet's cells depend on has been read. */
  private ready(): boolean {
    const parts = this.parts;
    return (
      parts.model !== undefined &&
      parts.workbookRels !== undefined &&
      (this.strings !== null || this.relation('sharedStrings') === undefined) &&
      (this.stylesRead || this.relation('styles') === undefined)
    );
  }

  /** The sheet asked for: its model, position and part; undefined while the workbook is not read; null: none. */
  private wanted(): { model: SheetModel; position: number; path: string | null } | null | undefined {
    const { parts, want } = this;
    const sheets = parts.model?.sheets;
    if (sheets === undefined || parts.workbookRels === undefined) return undefined;
    const position = typeof want === 'number' ? want : sheets.findIndex((s) => s.name === want) + 1;
    const model = sheets[position - 1];
    if (model === undefined) return null;
    const rel = parts.workbookRels.find((r) => r.Id === model.rId);
    return { model, position, path: rel === undefined ? null : partPath(rel.Target) };
  }

  private found(iterator: Readable, path: string, at: { model: SheetModel; position: number }): SheetFound {
    const sheetNo = /(\d+)\.xml$/.exec(path)?.[1] ?? '0';
    const sheet = [...this.parts._parseWorksheet(iterator, sheetNo)][0]?.value as StreamSheet;
    sheet.name = at.model.name;
    if (at.model.id !== undefined) sheet.id = at.model.id;
    if (at.model.state !== undefined) sheet.state = at.model.state;
    const finish = () => this.finish();
    return {
      kind: 'sheet',
      sheet,
      strings: this.strings,
      name: at.model.name,
      position: at.position,
      finish,
      close: () => iterator.destroy(),
    };
  }

  /** Reads the rest of the zip through. */
  private async finish(): Promise<void> {
    for (;;) {
      const next = await this.entries.next();
      if (next.done === true) return;
      await drain(next.value);
    }
  }

  /** The parts the relationships name that were not read (the zip has read to its end). */
  private unread(): Array<{ path: string; holds: string }> {
    const lacks: Array<{ path: string; holds: string }> = [];
    const strings = this.relation('sharedStrings');
    if (strings !== undefined && this.strings === null) lacks.push({ path: partPath(strings.Target), holds: 'its text cells' });
    const styles = this.relation('styles');
    if (styles !== undefined && !this.stylesRead)
      lacks.push({ path: partPath(styles.Target), holds: 'the formats of its cells: which numbers are dates' });
    return lacks;
  }

  private async keep(entry: Entry, path: string): Promise<void> {
    this.folder ??= mkdtempSync(join(tmpdir(), 'order-loader-xlsx-'));
    const file = join(this.folder, `${this.kept.size}.xml`);
    await pipeline(entry, createWriteStream(file));
    this.kept.set(path, file);
  }
}

/** Read an entry through, discarding it (unzipper's autodrain never settles when the zip breaks off). */
const drain = (entry: Entry): Promise<void> => pipeline(entry, new Writable({ write: (_chunk, _encoding, done) => done() }));

const sheetNames = (parts: PartParsers): string[] => (parts.model?.sheets ?? []).map((s) => s.name);
