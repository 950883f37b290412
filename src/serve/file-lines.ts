/**
 * The raw line of a row that parsed: the database keeps the raw text of rejected lines only, so
 * the page reads the line from the file its load read, when the file is still at that path with
 * the size the load recorded, plain UTF-8 (not gzip), and not larger than FILE_LINES_MAX_BYTES.
 * Otherwise the page shows what the database holds: the row's staged fields, said as such
 * (html.ts, rawLine). Read once per file per page, up to the last line asked for.
 */
import { createReadStream, openSync, readSync, closeSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { KnownLoad } from './filters.js';

export const FILE_LINES_MAX_BYTES = 256 * 1024 * 1024;

export interface LineWanted {
  stageId: number | null;
  loadId: number | null;
  lineNo: number | null;
  rawRecord: string | null;
}

function readable(load: KnownLoad): boolean {
  if (load.fileName === null || load.encoding !== 'utf-8' || load.fileSize === null || load.fileSize > FILE_LINES_MAX_BYTES) return false;
  try {
    const stat = statSync(load.fileName);
    if (!stat.isFile() || stat.size !== load.fileSize) return false;
    const fd = openSync(load.fileName, 'r');
    const magic = Buffer.alloc(2);
    try {
      readSync(fd, magic, 0, 2, 0);
    } finally {
      closeSync(fd);
    }
    return !(magic[0] === 0x1f && magic[1] === 0x8b);
  } catch {
    return false;
  }
}

async function readLines(path: string, wanted: Set<number>): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  const last = Math.max(...wanted);
  const stream = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const line of lines) {
      n++;
      if (wanted.has(n)) found.set(n, n === 1 ? line.replace(/^\uFEFF/, '') : line);
      if (n >= last) break;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  return found;
}

/** A line read again from its file (the page says where from). */
export interface FileLine {
  text: string;
  file: string;
  lineNo: number;
}

/** stage_id → the line read from its file, for the rows without a raw text of their own. */
export async function linesFromFiles(rows: readonly LineWanted[], loads: readonly KnownLoad[]): Promise<Map<number, FileLine>> {
  const byLoad = new Map<number, Map<number, number[]>>();
  for (const r of rows) {
    if (r.rawRecord !== null || r.stageId === null || r.loadId === null || r.lineNo === null) continue;
    const lines = byLoad.get(r.loadId) ?? new Map<number, number[]>();
    lines.set(r.lineNo, [...(lines.get(r.lineNo) ?? []), r.stageId]);
    byLoad.set(r.loadId, lines);
  }
  const out = new Map<number, FileLine>();
  for (const [loadId, lines] of byLoad) {
    const load = loads.find((l) => l.loadId === loadId);
    if (load === undefined || !readable(load) || load.fileName === null) continue;
    const file = load.fileName;
    const found = await readLines(file, new Set(lines.keys()));
    for (const [lineNo, text] of found) for (const stageId of lines.get(lineNo) ?? []) out.set(stageId, { text, file, lineNo });
  }
  return out;
}
