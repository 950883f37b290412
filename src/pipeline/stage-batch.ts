/**
 * One staging batch: its lines as the staging rule keeps them (a key's last line, where it was
 * read), and what the database made of them. A line the database refuses drops alone, as a line
 * the reader rejects does: the key's previous line in the batch is staged in its place, so the
 * key keeps the last line the database took, whatever the batch size (an earlier batch's line is
 * in the stage already).
 */
import type { Logger } from 'pino';
import type { StagingTx } from '../engine/contract.js';
import type { ErrorLogInput, StageBatchResult, StageInput, StageSettle } from '../engine/types.js';
import type { FileStageCounts } from './stage.js';
import { addStageCounts } from '../engine/stage-counts.js';

/** A line kept for staging: its row, and the item whose raw text is the error log's raw_record if the database refuses the row. */
export interface BatchLine {
  row: StageInput;
  /** The item, not its text: the reader decodes a line's text only when asked. */
  raw: { readonly raw: string };
}

export interface Batch {
  /** The file could not be read past this line (the last item of the batch). */
  stoppedAt?: { line: number; message: string } | undefined;
  /**
   * The batch's rows in the order of their last line; a row that a later line of its key
   * replaced is null (the last line wins, and is staged where it was read).
   */
  rows: Array<StageInput | null>;
  /** Each row's line (the same index). */
  raw: Array<{ readonly raw: string } | null>;
  /** source_key → its row's index in `rows`. */
  at: Map<string, number>;
  /** source_key → the key's earlier lines in the batch, in line order: staged in turn if the database refuses the later one. */
  earlier: Map<string, BatchLine[]>;
  errors: ErrorLogInput[];
  lines: number;
  duplicates: number;
  rejected: number;
  /** The checkpoint after the batch's last line (numbers per line; one object per batch, at commit). */
  endLine: number;
  endByte: number | null;
}

export function newBatch(): Batch {
  return {
    rows: [],
    raw: [],
    at: new Map(),
    earlier: new Map(),
    errors: [],
    lines: 0,
    duplicates: 0,
    rejected: 0,
    endLine: 0,
    endByte: null,
  };
}

/** A row for the batch: the last line of a key wins; the line it replaces is kept aside, in case the database refuses this one. */
export function addRow(b: Batch, row: StageInput, raw: { readonly raw: string }): void {
  const before = b.at.get(row.sourceKey);
  if (before !== undefined) {
    b.duplicates++;
    const replaced = b.rows[before];
    const replacedRaw = b.raw[before];
    if (replaced != null && replacedRaw != null) {
      const list = b.earlier.get(row.sourceKey);
      if (list === undefined) b.earlier.set(row.sourceKey, [{ row: replaced, raw: replacedRaw }]);
      else list.push({ row: replaced, raw: replacedRaw });
    }
    b.rows[before] = null;
    b.raw[before] = null;
  }
  b.at.set(row.sourceKey, b.rows.length);
  b.rows.push(row);
  b.raw.push(raw);
}

/**
 * The batch without its lines of these keys (a load begun after the batch's load staged them:
 * StageFileOptions.yieldToLaterLoads), each counted as a duplicate, a line a later line of its key
 * overrides; their error-log rows stay (a rejected line is rejected all the same). A new batch:
 * `b` itself is what a retry of the batch's transaction stages again.
 */
export function withoutKeys(b: Batch, keys: readonly string[]): Batch {
  const drop = new Set(keys);
  const rows = b.rows.map((r) => (r !== null && drop.has(r.sourceKey) ? null : r));
  const dropped = b.rows.reduce((n, r, i) => (r !== null && rows[i] === null ? n + 1 : n), 0);
  return {
    ...b,
    rows,
    raw: b.raw.map((r, i) => (rows[i] === null ? null : r)),
    at: new Map([...b.at].filter(([k]) => !drop.has(k))),
    earlier: new Map([...b.earlier].filter(([k]) => !drop.has(k))),
    duplicates: b.duplicates + dropped,
  };
}

/** Where a batch's lines stand in load order, when its load began before this run (StageFileOptions.yieldToLaterLoads). */
export interface YieldTo {
  /** The load its lines count as begun at: the resumed load, or the set's load of a file staged again (restaged-sets.ts). */
  began: number;
  /** Loads with a greater id whose lines it does not yield to (restaged-sets.ts, notLaterLoads; the batch's own load). */
  except: readonly number[];
}

/**
 * A batch of a load begun before this run (resumed, or a file of a set staged again), in its
 * transaction before it is staged: loads begun after it may have staged some of its keys meanwhile
 * (a command run between the kill and the rerun). Load order is the order in which loads begin,
 * so its lines of those keys are left out (withoutKeys). Where the engine cannot tell
 * (StagingTx.laterLoadKeys absent), the batch as it is.
 */
export async function yieldToLaterLoads(
  tx: Pick<StagingTx, 'laterLoadKeys'>,
  loadId: number,
  b: Batch,
  logger: Pick<Logger, 'info'>,
  to: YieldTo = { began: loadId, except: [] },
): Promise<Batch> {
  if (tx.laterLoadKeys === undefined) return b;
  const keys = await tx.laterLoadKeys(to.began, [...b.at.keys()], [...to.except]);
  if (keys.length === 0) return b;
  logger.info(
    { loadId, began: to.began, keys: keys.length, line: b.endLine },
    to.began === loadId
      ? `${keys.length} line(s) of resumed load ${loadId} not staged: a load begun after it staged their keys`
      : `${keys.length} line(s) of load ${loadId} not staged: it stages again a file its set's load ${to.began} began, and a load begun after that one staged their keys`,
  );
  return withoutKeys(b, keys);
}

/** The line of `sourceKey` at `lineNo` in the batch: its last line or one of its earlier ones. */
function lineOf(b: Batch, sourceKey: string, lineNo: number): BatchLine | undefined {
  const i = b.at.get(sourceKey);
  const row = i === undefined ? null : (b.rows[i] ?? null);
  const raw = i === undefined ? null : (b.raw[i] ?? null);
  if (row !== null && raw !== null && row.lineNo === lineNo) return { row, raw };
  return b.earlier.get(sourceKey)?.find((l) => l.row.lineNo === lineNo);
}

/** What staging a batch did, every line the database refused included. */
export interface BatchStaged {
  /** The batch's counts and every refusal, over the batch and the earlier lines staged in place of refused ones; null when the batch had no row. */
  staged: StageBatchResult | null;
  /** Keys of the rows staged (not refused). */
  stagedKeys: string[];
  /** Earlier lines of a refused key that were tried in its place (staged or refused): no longer overridden. */
  retried: number;
}

/**
 * Stage the batch's rows; then, while the database refused some, each refused key's previous
 * line in the batch (if it has one), in line order, in the same transaction. Those keys are on
 * more than one line of the file, never settled: the later calls go without `settle`.
 */
export async function stageBatchLines(
  tx: Pick<StagingTx, 'stageBatch'>,
  loadId: number,
  b: Batch,
  settle: StageSettle | undefined,
): Promise<BatchStaged> {
  const rows = b.rows.filter((r): r is StageInput => r !== null);
  if (rows.length === 0) return { staged: null, stagedKeys: [], retried: 0 };
  const staged = await tx.stageBatch(loadId, rows, settle);
  const all: StageBatchResult = { ...staged, refused: [...staged.refused] };
  const stagedKeys = keysTaken(rows, staged);
  const tried = new Map<string, number>();
  let retried = 0;
  for (let refused = staged.refused; refused.length > 0;) {
    const next: StageInput[] = [];
    for (const r of refused) {
      const list = b.earlier.get(r.sourceKey) ?? [];
      const used = tried.get(r.sourceKey) ?? 0;
      const line = list[list.length - 1 - used];
      if (line === undefined) continue;
      tried.set(r.sourceKey, used + 1);
      next.push(line.row);
    }
    if (next.length === 0) break;
    next.sort((x, y) => x.lineNo - y.lineNo);
    retried += next.length;
    const more = await tx.stageBatch(loadId, next);
    addStageCounts(all, more);
    all.refused.push(...more.refused);
    stagedKeys.push(...keysTaken(next, more));
    refused = more.refused;
  }
  all.refused.sort((x, y) => x.lineNo - y.lineNo);
  return { staged: all, stagedKeys, retried };
}

function keysTaken(rows: readonly StageInput[], staged: StageBatchResult): string[] {
  if (staged.refused.length === 0) return rows.map((r) => r.sourceKey);
  const refused = new Set(staged.refused.map((r) => r.sourceKey));
  return rows.filter((r) => !refused.has(r.sourceKey)).map((r) => r.sourceKey);
}

/**
 * The error-log rows of the rows the database refused while staging: the same shape as a
 * parse reject (phase PARSE, no stage row, the line's number and raw text), with the
 * database's code and message. A refused row whose line had already failed parsing has its
 * PARSE row and its count already: it gets the database's row, and no second count.
 */
export function refusalRows(loadId: number, b: Batch, staged: StageBatchResult | null): { errors: ErrorLogInput[]; rejected: number } {
  const errors: ErrorLogInput[] = [];
  let rejected = 0;
  for (const refusal of staged?.refused ?? []) {
    const line = lineOf(b, refusal.sourceKey, refusal.lineNo);
    if (line?.row.parseError === undefined) rejected++;
    errors.push({
      stageId: null,
      sourceKey: refusal.sourceKey,
      loadId,
      lineNo: refusal.lineNo,
      batchId: null,
      attemptNo: null,
      phase: 'PARSE',
      code: refusal.code,
      message: refusal.message,
      rawRecord: line?.raw.raw ?? null,
    });
  }
  return { errors, rejected };
}

/** The counts after a batch: `before` plus what the batch read and what the database found. */
export function addBatch(before: FileStageCounts, b: Batch, result: BatchStaged, refused: number): FileStageCounts {
  const staged = result.staged;
  return {
    read: before.read + b.lines,
    inserted: before.inserted + (staged?.inserted ?? 0),
    updated: before.updated + (staged?.updated ?? 0),
    unchanged: before.unchanged + (staged?.unchanged ?? 0),
    unchangedError: before.unchangedError + (staged?.unchangedError ?? 0),
    duplicates: before.duplicates + b.duplicates - result.retried + (staged?.repeatedInLoad ?? 0),
    rejected: before.rejected + b.rejected + refused,
  };
}
