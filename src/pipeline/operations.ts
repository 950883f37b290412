import { hostname, userInfo } from 'node:os';
import type { Engine, EngineTx, ManualChange, OrderValues, RowSelector, StageRowSnapshot } from '../engine/types.js';
import { UserError } from '../errors.js';
import { orderRecordSchema, validateOrder } from '../input/order-record.js';

/** Fields an operator may correct with --set (source_key is the business key: never). */
export const CORRECTABLE_FIELDS = ['customer_id', 'order_date', 'amount', 'currency'] as const;
type CorrectableField = (typeof CORRECTABLE_FIELDS)[number];

const FIELD_TO_VALUE: Record<CorrectableField, keyof OrderValues> = {
  customer_id: 'customerId',
  order_date: 'orderDate',
  amount: 'amount',
  currency: 'currency',
};

/**
 * Parse `--set field=value` corrections with the same rules as a file's values: the PARSE
 * rules (can it be stored) and the business rules of that field (would it pass validation).
 */
export function parseCorrections(assignments: string[]): Partial<OrderValues> {
  const corrections: Partial<OrderValues> = {};
  for (const assignment of assignments) {
    const eq = assignment.indexOf('=');
    const field = (eq === -1 ? assignment : assignment.slice(0, eq)).trim().toLowerCase();
    if (eq === -1) throw new UserError(`--set ${assignment}: expected field=value`);
    if (!(CORRECTABLE_FIELDS as readonly string[]).includes(field)) {
      throw new UserError(`--set ${field}: only ${CORRECTABLE_FIELDS.join(', ')} can be corrected`);
    }
    const name = field as CorrectableField;
    const parsed = orderRecordSchema.shape[name].safeParse(assignment.slice(eq + 1));
    if (!parsed.success) throw new UserError(`--set ${name}: ${parsed.error.issues[0]?.message ?? 'invalid value'}`);
    corrections[FIELD_TO_VALUE[name]] = parsed.data;
  }
  // the business rule of each corrected field, checked on its own
  const probe: OrderValues = { customerId: '1', orderDate: '2000-01-01', amount: '0', currency: 'AAA', ...corrections };
  const problem = validateOrder(probe);
  if (problem !== null) throw new UserError(`--set: ${problem.message}`);
  return corrections;
}

function valuesOf(row: StageRowSnapshot): OrderValues {
  return { customerId: row.customerId, orderDate: row.orderDate, amount: row.amount, currency: row.currency };
}

/** JSON of the fields that differ, before and after (the status included). */
function diff(row: StageRowSnapshot, values: OrderValues, newStatus: string): { oldValues: string; newValues: string } {
  const before: Record<string, unknown> = { process_status: row.status };
  const after: Record<string, unknown> = { process_status: newStatus };
  for (const [field, key] of Object.entries(FIELD_TO_VALUE)) {
    if (row[key] !== values[key]) {
      before[field] = row[key];
      after[field] = values[key];
    }
  }
  return { oldValues: JSON.stringify(before), newValues: JSON.stringify(after) };
}

export function defaultOperator(): string {
  try {
    return `${userInfo().username}@${hostname()}`;
  } catch {
    return `uid-${process.getuid?.() ?? '?'}@${hostname()}`;
  }
}

export interface RetryRequest {
  selector: RowSelector;
  /** --all-errors: every ERROR row. */
  all: boolean;
  corrections: Partial<OrderValues>;
  reason: string;
  operator: string;
  dryRun: boolean;
}

export interface ManualChangeReport {
  dryRun: boolean;
  changes: ManualChange[];
}

function selectorIsEmpty(s: RowSelector): boolean {
  return [s.stageIds, s.sourceKeys, s.errorCodes, s.loadIds].every((v) => v === undefined || v.length === 0);
}

/** The user errors of a retry request, found before anything is written (not even a run record). */
export function checkRetryRequest(request: RetryRequest): void {
  if (request.reason.trim() === '') throw new UserError('retry: --reason is required (it is recorded in the audit trail)');
  if (selectorIsEmpty(request.selector) && !request.all) {
    throw new UserError('retry: choose rows with --stage-id, --source-key, --error-code or --load-id, or say --all-errors');
  }
}

/** `retry`: ERROR → READY for the chosen rows, with optional corrections, audited. */
export async function retryRows(engine: Engine, request: RetryRequest): Promise<ManualChangeReport> {
  checkRetryRequest(request);
  return applyAudited(engine, 'RETRY', request, (tx) => tx.lockErrorRows(request.all ? {} : request.selector), request.corrections);
}

/** `recover`: PROCESSING rows that no live transaction holds and older than the threshold → READY, audited. */
export async function recoverRows(engine: Engine, request: { olderThanMs: number; operator: string; reason: string; dryRun: boolean }): Promise<ManualChangeReport> {
  return applyAudited(engine, 'RECOVER', request, (tx) => tx.lockStaleProcessing(new Date(Date.now() - request.olderThanMs)), {});
}

/** Lock the rows, plan each change (→ READY with `corrections`), apply it with its audit row unless a dry run. */
async function applyAudited(
  engine: Engine,
  action: ManualChange['action'],
  request: { operator: string; reason: string; dryRun: boolean },
  lock: (tx: EngineTx) => Promise<StageRowSnapshot[]>,
  corrections: Partial<OrderValues>,
): Promise<ManualChangeReport> {
  const changes = await engine.transaction(async (tx) => {
    const planned = (await lock(tx)).map((row): ManualChange => {
      const values = { ...valuesOf(row), ...corrections };
      return {
        stageId: row.stageId, sourceKey: row.sourceKey, action, oldStatus: row.status, newStatus: 'READY',
        values, ...diff(row, values, 'READY'), operator: request.operator, reason: request.reason,
      };
    });
    if (!request.dryRun) await tx.applyManualChanges(planned);
    return planned;
  });
  return { dryRun: request.dryRun, changes };
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
export async function markAbandonedRuns(engine: Engine, isGone: (pid: number) => boolean = processIsGone): Promise<number[]> {
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
