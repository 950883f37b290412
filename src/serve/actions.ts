/**
 * The page's two writes, each `retry`'s own operation (OrderLoader.retry: the same audit rows,
 * the same run record, processed at once): one row corrected, or a filtered selection unchanged.
 */
import { z } from 'zod';
import { UserError } from '../errors.js';
import type { OrderLoader } from '../loader.js';
import { parseCorrections, type ManualChangeReport } from '../pipeline/operations.js';
import type { ProcessReport } from '../pipeline/load.js';
import { selectedLoadIds, type ReviewFilter } from './filters.js';
import { EDIT_FIELDS } from './pages/row.js';

const reason = z.string().trim().min(1, 'a reason is required (it is recorded in the audit)').max(1000);
const field = z.string().max(200).optional();

const rowForm = z.object({
  reason,
  seen_attempts: z.coerce.number().int().min(0),
  seen_updated: z.iso.datetime(),
  customer_id: field,
  order_date: field,
  amount: field,
  currency: field,
  was_customer_id: field,
  was_order_date: field,
  was_amount: field,
  was_currency: field,
});

export interface ResubmitResult {
  retry: ManualChangeReport;
  process: ProcessReport | null;
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue === undefined ? 'invalid form' : `${issue.path.join('.') || 'form'}: ${issue.message}`;
}

function parseForm<T>(schema: z.ZodType<T>, form: Record<string, unknown>): T {
  const parsed = schema.safeParse(form);
  if (!parsed.success) throw new UserError(firstIssue(parsed.error));
  return parsed.data;
}

/** The fields the operator changed, as `retry --set` assignments (checked by its rules: parseCorrections). */
function changedFields(form: z.infer<typeof rowForm>): string[] {
  const set: string[] = [];
  for (const [name] of EDIT_FIELDS) {
    const now = form[name] ?? '';
    const was = form[`was_${name}`] ?? '';
    if (now.trim() !== was.trim()) set.push(`${name}=${now.trim()}`);
  }
  return set;
}

/** One ERROR row, corrected and resubmitted; refused when it changed since the form was opened (RowChangedError). */
export async function resubmitRow(
  loader: OrderLoader,
  stageId: number,
  body: Record<string, unknown>,
  operator: string,
): Promise<ResubmitResult> {
  const form = parseForm(rowForm, body);
  const corrections = parseCorrections(changedFields(form));
  return loader.retry({
    selector: { stageIds: [stageId] },
    all: false,
    corrections,
    reason: form.reason,
    operator,
    dryRun: false,
    seen: { attemptCount: form.seen_attempts, updatedAt: new Date(form.seen_updated) },
  });
}

const bulkForm = z.object({ reason, confirm: z.literal('yes', { error: 'tick the confirmation' }) });

/** Every ERROR row of a filter, resubmitted unchanged (after reference data was fixed), with one reason. */
export async function resubmitSelection(
  loader: OrderLoader,
  filter: ReviewFilter,
  body: Record<string, unknown>,
  operator: string,
): Promise<ResubmitResult | null> {
  const form = parseForm(bulkForm, body);
  if (filter.phase !== undefined)
    throw new UserError('a selection to resubmit is chosen by load, file, profile and error code, not by phase');
  const loadIds = await selectedLoadIds(loader, filter);
  if (loadIds !== undefined && loadIds.length === 0) return null;
  const errorCodes = filter.code === undefined ? undefined : [filter.code];
  const all = loadIds === undefined && errorCodes === undefined;
  return loader.retry({ selector: { loadIds, errorCodes }, all, corrections: {}, reason: form.reason, operator, dryRun: false });
}
