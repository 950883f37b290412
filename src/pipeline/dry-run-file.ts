/**
 * `--dry-run` of one file (and `preview`'s lines, src/pipeline/preview.ts): the parse and the
 * business rules of staging, every line judged, nothing written.
 */
import type { ControlOutcome, ControlTally } from '../input/control/control-check.js';
import type { FileRecord, FileReject, OrderFile } from '../input/order-file.js';
import { parseOrderRecord, validateOrder, type ParseOutcome, type ValidationFailure } from '../input/order-record.js';
import { parseMappedRecord } from '../input/profile/mapping.js';
import { KeyTable } from './key-table.js';
import { emptyStageCounts, type FileStageCounts } from './stage-counts.js';

export interface DryRunCounts extends FileStageCounts {
  /** Rows that would be staged as ERROR: their last line was rejected but had a usable source_key. */
  stagedAsError: number;
  /** Rows whose last line parses but breaks a business rule: ERROR by validation before the MERGE. */
  invalid: number;
  /** Rows that would reach the MERGE: DONE unless the database refuses them (see DryRunResult). */
  toMerge: number;
}

export interface DryRunResult {
  /**
   * The counts a real load of the file into a database that does not hold its keys yet would
   * report: `inserted` is its "staged", `invalid` its validation errors, `stagedAsError + invalid`
   * its ERROR rows. Only what needs the database is unknown: whether a key is already staged
   * (updated / unchanged) and the rows the database itself refuses in the MERGE (e.g. an amount
   * too large for orders.amount), which count in `toMerge`.
   */
  counts: DryRunCounts;
  /** The first rejected lines and invalid rows, for display. */
  samples: Array<{ lineNo: number; code: string; message: string }>;
  stoppedAt: { line: number; message: string } | null;
  /** Header names the loader does not use (a real load ignores them with a warning). */
  extraColumns: string[];
  /** Lines the file's profile discarded (`when`, `comment`, `skip_lines`); absent without a profile. */
  discarded?: number;
  /** The file's control totals (its profile's `control:`), checked on the whole file as a load checks them; absent: none stated. */
  control?: ControlOutcome;
}

/**
 * One data line of a dry run as it was judged (for `preview`, src/pipeline/preview.ts): a line
 * the reader rejected, or a record with its parse and, when it parsed, the business rule it breaks.
 */
export type DryRunLine = { item: FileReject } | { item: FileRecord; parsed: ParseOutcome; invalid: ValidationFailure | null };

/** What a dry run keeps per distinct source_key: the outcome of its last line. */
const KEY_READY = 0;
const KEY_INVALID = 1;
const KEY_PARSE_ERROR = 2;

/**
 * `--dry-run`: the parse and the business rules of `load`, applied to every line, writing nothing
 * anywhere. Duplicates are found across the whole file as staging finds them (the last line of a
 * key wins), so the outcome of each distinct key's last line is kept in memory: memory grows with
 * the number of distinct keys (a Map entry per key: measured 45–62 bytes per key of 11–21
 * characters, so some 50–100 MB per million keys).
 */
export async function dryRunFile(
  file: OrderFile,
  onLine?: (line: DryRunLine) => void,
  /** The file's control totals, checked on the same pass as a load's pre-read checks them (null: none stated). */
  control: ControlTally | null = null,
): Promise<DryRunResult> {
  const counts: DryRunCounts = { ...emptyStageCounts(), stagedAsError: 0, invalid: 0, toMerge: 0 };
  const samples: DryRunResult['samples'] = [];
  let stoppedAt: DryRunResult['stoppedAt'] = null;
  const keys = new KeyTable();
  const sample = (lineNo: number, code: string, message: string) => {
    if (samples.length < 20) samples.push({ lineNo, code, message });
  };
  try {
    for await (const item of file.items) {
      counts.read++;
      control?.add(item);
      if (item.kind === 'reject') {
        counts.rejected++;
        sample(item.lineNo, item.code, item.message);
        onLine?.({ item });
        if (item.stopsFile) {
          stoppedAt = { line: item.lineNo, message: item.message };
          break;
        }
        continue;
      }
      const order = item.order;
      if (order != null) {
        // parsed and valid as the mapping handed it over: not read or judged again
        onLine?.({ item, parsed: { ok: true, order }, invalid: null });
        if (keys.set(order.sourceKey, KEY_READY)) counts.duplicates++;
        continue;
      }
      const parsed = item.problem == null ? parseOrderRecord(item.fields) : parseMappedRecord(item.fields, item.problem);
      let key: string | null;
      let outcome: number;
      if (parsed.ok) {
        key = parsed.order.sourceKey;
        const problem = validateOrder(parsed.order);
        outcome = problem === null ? KEY_READY : KEY_INVALID;
        // samples show every line with a problem, also one that a later line of its key replaces
        if (problem !== null) sample(item.lineNo, problem.code, problem.message);
        onLine?.({ item, parsed, invalid: problem });
      } else {
        key = parsed.sourceKey;
        outcome = KEY_PARSE_ERROR;
        counts.rejected++;
        sample(item.lineNo, parsed.error.code, parsed.error.message);
        onLine?.({ item, parsed, invalid: null });
      }
      if (key === null) continue;
      if (keys.set(key, outcome)) counts.duplicates++;
    }
  } finally {
    file.close();
  }
  counts.inserted = keys.size;
  const outcomes = keys.numberCounts();
  counts.toMerge = outcomes[KEY_READY] ?? 0;
  counts.invalid = outcomes[KEY_INVALID] ?? 0;
  counts.stagedAsError = keys.size - counts.toMerge - counts.invalid;
  const discarded = file.discarded();
  return {
    counts,
    samples,
    stoppedAt,
    extraColumns: file.header.extraColumns,
    ...(discarded > 0 ? { discarded } : {}),
    ...(control === null ? {} : { control: await control.finish(file, file.size) }),
  };
}
