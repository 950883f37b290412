/**
 * `accept <load> --reason "…"`: an operator who checked with the partner lets through a load held
 * for its control totals (a profile's `control:`, src/pipeline/load-control.ts). In one
 * transaction: the load's control hold is read (a load never held, or already accepted, is
 * refused), its HELD rows are locked and released to processing (READY) with one audit row each
 * (action ACCEPT, as `retry` audits in order_stage_audit), and a `control_accepted` event naming
 * the load is written in the accept's run: from then on no release or rerun holds it for its
 * control totals again (release_held.sql, lock_abandoned_holds.sql read both events). The
 * processing that follows is part of the accept's run, as a `retry`'s is.
 */
import type { JournalTx, OperatorTx, Transactor } from '../engine/contract.js';
import { UserError } from '../errors.js';
import { operatorOf, plannedChange, REPORTED_CHANGES, type ManualChangeReport } from './operations.js';

export interface AcceptRequest {
  loadId: number;
  /** Why it is let through (required: recorded in the audit and the event). */
  reason: string;
  /** Recorded in the audit; default (not given or blank): the OS user at this host. */
  operator?: string | undefined;
  /** Say what would be released, change nothing. */
  dryRun: boolean;
}

export interface AcceptReport extends ManualChangeReport {
  loadId: number;
  /** What the file stated and what was read, as the load's control hold recorded them. */
  hold: Record<string, unknown> | null;
}

export type AcceptPort = Transactor<OperatorTx & JournalTx>;

export function checkAcceptRequest(request: AcceptRequest): void {
  if (!Number.isSafeInteger(request.loadId) || request.loadId <= 0)
    throw new UserError('accept: the load is its number (order-loader status lists them)');
  if (request.reason.trim() === '') throw new UserError('accept: --reason is required (it is recorded in the audit trail)');
}

/** Release a control-held load's rows, audited, and mark it accepted (`runId`: the accept's run; null for a dry run). */
export async function acceptLoad(engine: AcceptPort, request: AcceptRequest, runId: number | null): Promise<AcceptReport> {
  checkAcceptRequest(request);
  const who = { operator: operatorOf(request.operator), reason: request.reason };
  const { loadId } = request;
  return engine.transaction(async (tx) => {
    const hold = await tx.controlHold(loadId);
    if (hold === null) throw new UserError(`accept: load ${loadId} is not held for its control totals (nothing to accept)`);
    if (hold.accepted) throw new UserError(`accept: load ${loadId} was accepted already`);
    const rows = await tx.lockControlHeld(loadId);
    const changes = rows.map((row) => plannedChange(row, 'ACCEPT', who, {}));
    if (!request.dryRun) {
      await tx.applyManualChanges(changes);
      if (runId !== null) await tx.addRunEvent(runId, { event: 'control_accepted', detail: { loadId, rows: changes.length, ...who } });
    }
    return {
      loadId,
      hold: hold.detail,
      dryRun: request.dryRun,
      count: changes.length,
      changes: changes.slice(0, REPORTED_CHANGES),
      ...(changes.length > 0 ? { released: changes.length } : {}),
    };
  });
}
