/**
 * `retry` and a load held for its control totals (a profile's `control:`, src/pipeline/accept.ts):
 * nothing of such a file is merged until `accept`, its ERROR rows (lines rejected while it was
 * staged) included. The database leaves them out of what a retry locks and changes
 * (lock_error_rows.sql, find_error_rows.sql); a retry says which loads it left and what lets them
 * through (control_held_errors.sql), and the review page's form of one such row is refused. Once
 * the load is accepted its rows are retried as any others.
 *
 * Likewise the ERROR rows of a load an unfinished hold set holds (a killed multi-file run's set,
 * src/pipeline/load-holds.ts): a file of the set not staged yet may repeat their keys, and an
 * earlier line never wins over a later one, so nothing that runs before the set's rerun merges
 * them. The set's rerun (staging its files whole) or `recover --older-than` (giving it up) lets
 * them through.
 */
import type { OperatorTx } from '../engine/contract.js';
import type { ControlHeldRows, RowSelector } from '../engine/types.js';
import { UserError } from '../errors.js';

export type { ControlHeldRows };

/** What lets a control-held load's rows through. */
export function acceptAdvice(loadId: number): string {
  return `nothing of its file is merged until \`order-loader accept ${loadId} --reason "…"\``;
}

/** Why a load's chosen ERROR rows were left, and what lets them through. */
export function heldAdvice(held: ControlHeldRows): string {
  const bySet = "the load is held by an unfinished set: rerun the set's files, or `order-loader recover --older-than …` to give it up";
  if (held.control === false) return bySet;
  const control = `the load is held for its control totals, and ${acceptAdvice(held.loadId)}`;
  return held.set === true ? `${control}; and ${bySet}` : control;
}

/** The loads whose chosen ERROR rows a retry left as they are (undefined: none). */
export async function controlHeldOf(
  tx: Pick<OperatorTx, 'controlHeldErrors'>,
  selector: RowSelector,
): Promise<ControlHeldRows[] | undefined> {
  const held = await tx.controlHeldErrors(selector);
  return held.length === 0 ? undefined : held;
}

/** The review page's form of one row (its stage id the selector): refused when its load is held for its control totals or by an unfinished set. */
export async function refuseControlHeld(tx: Pick<OperatorTx, 'controlHeldErrors'>, selector: RowSelector): Promise<void> {
  const held = (await tx.controlHeldErrors(selector))[0];
  if (held === undefined) return;
  const which = (selector.stageIds ?? []).map((id) => `stage_id ${id}`).join(', ');
  throw new UserError(
    held.control === false
      ? `${which === '' ? 'the row' : which} was not resubmitted: load ${held.loadId}: ${heldAdvice(held)}`
      : `${which === '' ? 'the row' : which} was not resubmitted: load ${held.loadId} is held for its control totals (its file's count or sum differs from what was read): ${acceptAdvice(held.loadId)}${held.set === true ? "; it is held by an unfinished set too: rerun the set's files, or `order-loader recover --older-than …` to give it up" : ''}`,
  );
}
