import { hostname, userInfo } from 'node:os';
import type { ErrorPhase, HeldLoad, ManualChange, OperatorTx, OrderValues, RowSelector, StageRowSnapshot } from '../engine/types.js';
import { RunAbortedError, UserError } from '../errors.js';
import { controlHeldOf, refuseControlHeld, type ControlHeldRows } from './control-held-rows.js';
import { describeDbError } from './db-error.js';
import type { AbandonedRunsPort, OperatorPort } from './ports.js';
import { orderRecordSchema } from '../input/order-record.js';
import { splitRawLine } from '../input/raw-line.js';
import { canonicalAttributes, parseAttributes } from '../input/profile/attributes.js';
import { CORRECTABLE_FIELDS, diff, FIELD_TO_VALUE, valuesOf, type AttributeChange, type Corrections } from './corrections.js';

export function defaultOperator(): string {
  try {
    return `${userInfo().username}@${hostname()}`;
  } catch {
    return `uid-${process.getuid?.() ?? '?'}@${hostname()}`;
  }
}

/**
 * Who is recorded for a manual change: the operator given, or, when none is given (or it is
 * blank), the OS user at this host, as the CLI's --operator defaults. The audit's operator column
 * is NOT NULL: a library call without one must not reach the database as NULL.
 */
export function operatorOf(operator: string | undefined | null): string {
  return typeof operator === 'string' && operator.trim() !== '' ? operator : defaultOperator();
}

export interface RetryRequest {
  selector: RowSelector;
  /** --all-errors: every ERROR row. */
  all: boolean;
  corrections: Corrections;
  /**
   * Only the rows whose latest error is of this phase (the review page's filter): the rows the
   * selector chooses are locked batch by batch as without it, and those of another phase left as
   * they are.
   */
  phase?: ErrorPhase | undefined;
  reason: string;
  /** Recorded in the audit; default (not given or blank): the OS user at this host, as the CLI's --operator. */
  operator?: string | undefined;
  dryRun: boolean;
  /**
   * What the operator saw of the row(s) (the review page's form): the change is refused, and
   * nothing written, when no row matches any more or one has another attempt count or update
   * time (another operator, or processing, changed it since).
   */
  seen?: SeenRow | undefined;
}

/** What an operator saw of a row when they opened its form (an optimistic check: RetryRequest.seen). */
export interface SeenRow {
  attemptCount: number;
  updatedAt: Date;
}

/** The row changed since the operator saw it: said to them, nothing written. */
export class RowChangedError extends UserError {}

function checkSeen(rows: StageRowSnapshot[], seen: SeenRow): void {
  if (rows.length === 0)
    throw new RowChangedError('the row is no longer ERROR: someone else resubmitted it, or it was processed since you opened it');
  for (const row of rows) {
    if (row.attemptCount !== seen.attemptCount || row.updatedAt.getTime() !== seen.updatedAt.getTime()) {
      throw new RowChangedError(
        `stage_id ${row.stageId} changed since you opened it (attempt ${row.attemptCount}, updated ${row.updatedAt.toISOString()}): reload it and correct it again`,
      );
    }
  }
}

export interface RecoverRequest {
  olderThanMs: number;
  /** Recorded in the audit; default as RetryRequest's. */
  operator?: string | undefined;
  /** Recorded in the audit; default (not given or blank): defaultRecoverReason(olderThanMs). */
  reason?: string | undefined;
  dryRun: boolean;
}

/** The reason `recover` records when none is given. */
export function defaultRecoverReason(olderThanMs: number): string {
  return `recover: PROCESSING rows older than ${Math.round(olderThanMs / 1000)} s that no transaction holds, and HELD rows of loads no running run stages held that long`;
}

export interface ManualChangeReport {
  dryRun: boolean;
  /** Rows changed (a dry run: rows that would be), in all batches. */
  count: number;
  /** The first REPORTED_CHANGES of them, in stage_id order (the report's memory stays bounded). */
  changes: ManualChange[];
  /** `recover`: how many of the changes are HELD rows released to processing (audited like the others). */
  released?: number;
  /** `recover`: the HELD rows it leaves HELD, by load, and why (their holds are younger than --older-than, or a running run stages them). */
  heldKept?: HeldKept[];
  /** `retry`: the chosen ERROR rows it left ERROR, of loads held for their control totals (until `accept`). */
  controlHeld?: ControlHeldRows[];
}

/** HELD rows of one load that `recover` leaves HELD. */
export interface HeldKept extends HeldLoad {
  /** 'younger': held more recently than --older-than; 'staging': a RUNNING run stages the load; 'control': held for its control totals until `accept`. */
  why: 'younger' | 'staging' | 'control';
}

/** Changes listed in a report; `count` has the total. */
export const REPORTED_CHANGES = 1000;

/** ERROR rows a `retry` changes per transaction unless told (the default chunk size). */
export const DEFAULT_RETRY_BATCH = 2000;

export interface RetryBatchOptions {
  /** Rows locked, changed and audited per transaction. */
  batchSize?: number | undefined;
  /** Stop between batches (the committed batches stay). */
  signal?: AbortSignal | undefined;
  /**
   * --row-lock-wait: the longest a batch's transaction waits for a row another session holds
   * (0: no limit). Past it the batch rolls back and is run again as a transient failure, then
   * the retry stops saying so; a dry run locks nothing.
   */
  lockWaitMs?: number | undefined;
}

function selectorIsEmpty(s: RowSelector): boolean {
  return [s.stageIds, s.sourceKeys, s.errorCodes, s.loadIds].every((v) => v === undefined || v.length === 0);
}

/** The user errors of a retry request, found before anything is written (not even a run record). */
export function checkRetryRequest(request: RetryRequest): void {
  if (typeof request.reason !== 'string' || request.reason.trim() === '')
    throw new UserError('retry: --reason is required (it is recorded in the audit trail)');
  if (selectorIsEmpty(request.selector) && !request.all) {
    throw new UserError('retry: choose rows with --stage-id, --source-key, --error-code or --load-id, or say --all-errors');
  }
}

/** The change that makes a locked (or, in a dry run, read) row READY with `corrections`. */
export function plannedChange(
  row: StageRowSnapshot,
  action: ManualChange['action'],
  request: { operator: string; reason: string },
  corrections: Corrections,
  startValues?: OrderValues,
  attributes?: AttributeChange,
): ManualChange {
  const { attributes: _attributes, ...fields } = corrections;
  const values = { ...(startValues ?? valuesOf(row)), ...fields };
  return {
    stageId: row.stageId,
    sourceKey: row.sourceKey,
    action,
    oldStatus: row.status,
    newStatus: 'READY',
    values,
    ...(attributes === undefined ? {} : { attributes: canonicalAttributes(attributes.after) }),
    ...diff(row, values, 'READY', attributes),
    operator: request.operator,
    reason: request.reason,
  };
}

/** The attributes of these rows with the corrections applied ('' removes one), read from the (locked) rows. */
async function attributeChanges(
  tx: OperatorTx,
  rows: StageRowSnapshot[],
  corrections: Record<string, string> | undefined,
): Promise<Map<number, AttributeChange>> {
  const changes = new Map<number, AttributeChange>();
  if (corrections === undefined || rows.length === 0) return changes;
  const stored = await tx.rowAttributes(rows.map((r) => r.stageId));
  for (const row of rows) {
    const before = parseAttributes(stored.get(row.stageId) ?? null);
    const merged = new Map(Object.entries(before ?? {}));
    for (const [name, value] of Object.entries(corrections)) {
      if (value === '') merged.delete(name);
      else merged.set(name, value);
    }
    changes.set(row.stageId, { before, after: merged.size === 0 ? null : Object.fromEntries(merged) });
  }
  return changes;
}

/** Of a locked batch, the rows whose latest error is of `phase` (all of them without one). */
async function ofPhase(tx: OperatorTx, rows: StageRowSnapshot[], phase: ErrorPhase | undefined): Promise<StageRowSnapshot[]> {
  if (phase === undefined || rows.length === 0) return rows;
  const latest = new Map((await tx.latestRawRecords(rows.map((r) => r.stageId))).map((r) => [r.stageId, r.phase]));
  return rows.filter((r) => latest.get(r.stageId) === phase);
}

/**
 * `retry`: ERROR → READY for the chosen rows, with optional corrections, audited.
 *
 * The rows are walked in stage_id order in batches of `batchSize`, each batch one transaction:
 * lock the batch's rows (FOR UPDATE), change them, write one audit row each, COMMIT. Locks,
 * transaction length and memory are those of one batch whatever the selection (one transaction
 * of 200,000 rows held every lock for 25 s and took 770 MB). A failure or an interruption leaves
 * every committed batch complete and audited; the rows changed are READY, no longer ERROR, so
 * the same command run again picks up the rest. A dry run reads the same batches without locking
 * anything and reports the same plan.
 */
export async function retryRows(engine: OperatorPort, request: RetryRequest, options: RetryBatchOptions = {}): Promise<ManualChangeReport> {
  checkRetryRequest(request);
  const who = { operator: operatorOf(request.operator), reason: request.reason };
  const selector = request.all ? {} : request.selector;
  const limit = Math.max(1, Math.floor(options.batchSize ?? DEFAULT_RETRY_BATCH));
  const txOptions = request.dryRun || options.lockWaitMs === undefined ? undefined : { lockWaitMs: options.lockWaitMs };
  const report: ManualChangeReport = { dryRun: request.dryRun, count: 0, changes: [] };
  let after = 0;
  for (;;) {
    if (options.signal?.aborted === true) {
      throw new RunAbortedError(
        `retry interrupted: ${report.count} row(s) ${request.dryRun ? 'planned' : 'changed, committed and audited'}; run the same command again for the rest`,
        'interrupted',
      );
    }
    const window = { afterStageId: after, limit };
    let planned: ManualChange[];
    let controlHeld: ControlHeldRows[] | undefined;
    let lastRead: number | undefined;
    try {
      ({ planned, controlHeld } = await engine.transaction(async (tx) => {
        // the database leaves out the rows of loads held for their control totals
        const read = request.dryRun ? await tx.findErrorRows(selector, window) : await tx.lockErrorRows(selector, window);
        lastRead = read[read.length - 1]?.stageId;
        const rows = await ofPhase(tx, read, request.phase);
        if (request.seen !== undefined && after === 0) {
          await refuseControlHeld(tx, selector);
          checkSeen(rows, request.seen);
        }
        // the walk's last, empty step: which loads' chosen rows were left, read once
        if (lastRead === undefined) return { planned: [], controlHeld: await controlHeldOf(tx, selector) };
        const start = await lineValuesOf(tx, rows, request.corrections);
        const attributes = await attributeChanges(tx, rows, request.corrections.attributes);
        const batch = rows.map((row) =>
          plannedChange(row, 'RETRY', who, request.corrections, start.get(row.stageId), attributes.get(row.stageId)),
        );
        if (!request.dryRun) await tx.applyManualChanges(batch);
        return { planned: batch, controlHeld: undefined };
      }, txOptions));
    } catch (error) {
      if (report.count === 0) throw error;
      // a mistake in the request stays a user error; it says what the earlier batches did
      if (error instanceof UserError) {
        throw new UserError(
          `${error.message}; ${report.count} row(s) of earlier batches were ${request.dryRun ? 'planned' : 'changed, committed and audited'}`,
          { cause: error },
        );
      }
      throw new RunAbortedError(
        `retry stopped after ${report.count} row(s) ${request.dryRun ? 'planned' : 'changed, committed and audited'}: ${describeDbError(error)}; run the same command again for the rest`,
        'fatal',
        { cause: error },
      );
    }
    // the batch's last row read, changed or not (a phase leaves some as they are)
    if (lastRead === undefined) return controlHeld === undefined ? report : { ...report, controlHeld };
    after = lastRead;
    report.count += planned.length;
    for (const change of planned) {
      if (report.changes.length >= REPORTED_CHANGES) break;
      report.changes.push(change);
    }
  }
}

/**
 * A row whose line was rejected while parsing holds no values in the stage: its retry starts
 * from the values of that line (its latest error-log row's raw text, split by its file's
 * header), each read with the rules of a file's values, and the corrections replace some of
 * them. A value of the line that still cannot be read, and that no correction replaces, refuses
 * the retry (nothing is changed): the row would only fail again as "missing".
 */
async function lineValuesOf(tx: OperatorTx, rows: StageRowSnapshot[], corrections: Corrections): Promise<Map<number, OrderValues>> {
  const values = new Map<number, OrderValues>();
  const rejected = rows.filter((r) => r.errorCode !== null && r.errorCode.startsWith('PARSE'));
  if (rejected.length === 0) return values;
  const raws = await tx.latestRawRecords(rejected.map((r) => r.stageId));
  const layouts = await tx.fileLayouts([...new Set(raws.map((r) => r.loadId).filter((id): id is number => id !== null))]);
  const byId = new Map(rejected.map((r) => [r.stageId, r]));
  const problems: string[] = [];
  for (const raw of raws) {
    const row = byId.get(raw.stageId);
    const layout = raw.loadId === null ? undefined : layouts.get(raw.loadId);
    if (row === undefined || raw.rawRecord === null || raw.rawRecord === '' || layout === undefined) continue;
    const line = splitRawLine(raw.rawRecord, layout);
    const from: OrderValues = { customerId: null, orderDate: null, amount: null, currency: null };
    for (const field of CORRECTABLE_FIELDS) {
      const key = FIELD_TO_VALUE[field];
      if (corrections[key] !== undefined) continue;
      const parsed = orderRecordSchema.shape[field].safeParse(line[field]);
      if (parsed.success) from[key] = parsed.data;
      else problems.push(`stage_id ${row.stageId} (${row.sourceKey}): ${parsed.error.issues[0]?.message ?? `${field} cannot be read`}`);
    }
    values.set(row.stageId, from);
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).join('; ') + (problems.length > 5 ? `; and ${problems.length - 5} more` : '');
    throw new UserError(
      `retry: a row's line still has a value that cannot be read; correct it with --set or leave the row out (its batch was not changed): ${shown}`,
    );
  }
  return values;
}

/**
 * `recover`: PROCESSING rows that no live transaction holds and older than the threshold → READY,
 * audited; and the HELD rows of the loads that no running run stages and whose latest hold is
 * older than the threshold (a `load` killed while it staged a set of files that is not loaded
 * again: the operator gives the set up) → READY, audited the same way (old status HELD). A dry
 * run plans the same. The HELD rows left HELD are reported by load with why (`heldKept`): a
 * killed run's holds keep an earlier line of a key out of orders until its files are loaded
 * again, whatever runs meanwhile.
 */
export async function recoverRows(
  engine: OperatorPort,
  request: RecoverRequest,
  heldLoads: () => Promise<HeldLoad[]> = () => Promise.resolve([]),
): Promise<ManualChangeReport> {
  const who = recoverAuditOf(request);
  const cutoff = new Date(Date.now() - request.olderThanMs);
  const { changes, held } = await engine.transaction(async (tx) => {
    const stale = await tx.lockStaleProcessing(cutoff);
    const abandoned = await tx.lockAbandonedHolds(cutoff);
    const planned = [...stale, ...abandoned].sort((a, b) => a.stageId - b.stageId).map((row) => plannedChange(row, 'RECOVER', who, {}));
    if (!request.dryRun) {
      await tx.applyManualChanges(planned);
      // the sets that held them wait on them no more: a later run of part of a set is not
      // kept from releasing what the operator gave up
      const gaveUp = [...new Set(abandoned.flatMap((row) => (row.loadId === null ? [] : [row.loadId])))];
      if (gaveUp.length > 0) await tx.endHoldSets(gaveUp, []);
    }
    return { changes: planned, held: abandoned };
  });
  const releasedByLoad = new Map<number, number>();
  for (const row of held) if (row.loadId !== null) releasedByLoad.set(row.loadId, (releasedByLoad.get(row.loadId) ?? 0) + 1);
  const released = held.length;
  // a dry run released nothing: the rows it would release are still HELD
  const heldKept: HeldKept[] = (await heldLoads())
    .map((l) => ({ ...l, rows: l.rows - (request.dryRun ? (releasedByLoad.get(l.loadId) ?? 0) : 0) }))
    .filter((l) => l.rows > 0)
    .map((l) => ({ ...l, why: l.control === true ? 'control' : l.staging ? 'staging' : 'younger' }));
  return {
    dryRun: request.dryRun,
    count: changes.length,
    changes: changes.slice(0, REPORTED_CHANGES),
    ...(released > 0 ? { released } : {}),
    ...(heldKept.length > 0 ? { heldKept } : {}),
  };
}

/** The operator and reason a recover records (each defaulted when not given or blank). */
export function recoverAuditOf(request: RecoverRequest): { operator: string; reason: string } {
  const reason =
    typeof request.reason === 'string' && request.reason.trim() !== '' ? request.reason : defaultRecoverReason(request.olderThanMs);
  return { operator: operatorOf(request.operator), reason };
}

function processIsGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * A RUNNING run whose process is gone (this host only: another host's processes cannot be
 * seen from here) is marked FAILED as abandoned. Runs at the start of every command.
 */
export async function markAbandonedRuns(engine: AbandonedRunsPort, isGone: (pid: number) => boolean = processIsGone): Promise<number[]> {
  const host = hostname();
  const abandoned: number[] = [];
  for (const run of await engine.runningRuns()) {
    if (run.host !== host || run.pid === process.pid || !isGone(run.pid)) continue;
    const reason = `abandoned: process ${run.pid} on ${run.host} is gone`;
    await engine.transaction((tx) => tx.addRunEvent(run.runId, { event: 'failed', detail: { reason } }));
    await engine.finishRun(run.runId, 'FAILED', run.counts ?? {}, reason);
    abandoned.push(run.runId);
  }
  return abandoned;
}
