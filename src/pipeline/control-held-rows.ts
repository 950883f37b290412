/**
 * `retry` and a load held for its control totals (a profile's `control:`, src/pipeline/accept.ts):
 * nothing of such a file is merged until `accept`, its ERROR rows (lines rejected while it was
 * staged) included. A retry would make them READY and processing would merge part of the file,
 * so it leaves them ERROR and says which loads and what lets them through; the review page's form
 * of one such row is refused. Once the load is accepted its rows are retried as any others.
 */
import type { OperatorTx } from '../engine/contract.js';
import type { StageRowSnapshot } from '../engine/types.js';
import { UserError } from '../errors.js';

/** The ERROR rows of one control-held load that a retry chose and left ERROR. */
export interface ControlHeldRows {
  loadId: number;
  rows: number;
}

/** What lets a control-held load's rows through. */
export function acceptAdvice(loadId: number): string {
  return `nothing of its file is merged until \`order-loader accept ${loadId} --reason "…"\``;
}

/** One retry's view of the control holds: each load's hold read once, the rows left ERROR counted by load. */
export class ControlHeldLoads {
  private readonly held = new Map<number, boolean>();
  private readonly left = new Map<number, number>();

  /**
   * The rows of a (locked) batch split into those a retry may change and those of loads held for
   * their control totals. Reading a hold once per retry is safe: a load is marked held before any
   * row of it is staged, and one accepted meanwhile is only retried by the next command.
   */
  async split(
    tx: Pick<OperatorTx, 'controlHold'>,
    rows: StageRowSnapshot[],
  ): Promise<{ free: StageRowSnapshot[]; held: StageRowSnapshot[] }> {
    for (const loadId of new Set(rows.map((r) => r.loadId))) {
      if (loadId === null || this.held.has(loadId)) continue;
      const hold = await tx.controlHold(loadId);
      this.held.set(loadId, hold !== null && !hold.accepted);
    }
    const isHeld = (row: StageRowSnapshot): boolean => row.loadId !== null && this.held.get(row.loadId) === true;
    return { free: rows.filter((r) => !isHeld(r)), held: rows.filter(isHeld) };
  }

  /** The review page's form of one row: refused, with the load and what lets it through. */
  refuse(held: StageRowSnapshot[]): void {
    const row = held[0];
    if (row === undefined || row.loadId === null) return;
    throw new UserError(
      `stage_id ${row.stageId} (${row.sourceKey}) was not resubmitted: load ${row.loadId} is held for its control totals (its file's count or sum differs from what was read): ${acceptAdvice(row.loadId)}`,
    );
  }

  /** Count a committed batch's rows left ERROR. */
  count(held: StageRowSnapshot[]): void {
    for (const row of held) if (row.loadId !== null) this.left.set(row.loadId, (this.left.get(row.loadId) ?? 0) + 1);
  }

  /** The loads whose rows were left ERROR, by load (undefined: none). */
  report(): ControlHeldRows[] | undefined {
    if (this.left.size === 0) return undefined;
    return [...this.left].sort(([a], [b]) => a - b).map(([loadId, rows]) => ({ loadId, rows }));
  }
}
