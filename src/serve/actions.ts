/**
 * The page's two writes, each `retry`'s own operation (OrderLoader.retry: the same audit rows,
 * the same run record, processed at once): one row corrected, or a filtered selection unchanged.
 */
import { z } from 'zod';
import { UserError } from '../errors.js';
import type { OrderLoader } from '../loader.js';
import { ATTRIBUTE_PREFIX, parseCorrections } from '../pipeline/corrections.js';
import type { ManualChangeReport } from '../pipeline/operations.js';
import type { ProcessReport } from '../pipeline/load.js';
import { selectedLoadIds, type ReviewFilter } from './filters.js';
import { ATTRIBUTE_INPUT, EDIT_FIELDS } from './pages/row.js';

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

/** The attributes' inputs of the form: `attribute.NAME` beside `was_attribute.NAME`, by name. */
function attributeInputs(body: Record<string, unknown>): Array<{ name: string; now: string; was: string }> {
  const inputs: Array<{ name: string; now: string; was: string }> = [];
  for (const [key, value] of Object.entries(body)) {
    if (!key.startsWith(ATTRIBUTE_INPUT)) continue;
    const was = body[`was_${key}`];
    if (typeof value !== 'string' || typeof was !== 'string') throw new UserError(`${key}: not a field of this form`);
    if (value.length > 10_000) throw new UserError(`${key}: longer than 10,000 characters`);
    inputs.push({ name: key.slice(ATTRIBUTE_INPUT.length), now: value, was });
  }
  return inputs;
}

/** The fields and attributes the operator changed, as `retry --set` assignments (checked by its rules: parseCorrections). */
function changedFields(form: z.infer<typeof rowForm>, body: Record<string, unknown>): string[] {
  const set: string[] = [];
  for (const [name] of EDIT_FIELDS) {
    const now = form[name] ?? '';
    const was = form[`was_${name}`] ?? '';
    if (now.trim() !== was.trim()) set.push(`${name}=${now.trim()}`);
  }
  for (const a of attributeInputs(body)) if (a.now.trim() !== a.was.trim()) set.push(`${ATTRIBUTE_PREFIX}${a.name}=${a.now.trim()}`);
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
  const corrections = parseCorrections(changedFields(form, body));
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
  const loadIds = await selectedLoadIds(loader, filter);
  if (loadIds !== undefined && loadIds.length === 0) return null;
  const errorCodes = filter.code === undefined ? undefined : [filter.code];
  // a phase alone selects among every ERROR row: retry walks them all and changes those of the phase
  const all = loadIds === undefined && errorCodes === undefined;
  return loader.retry({
    selector: { loadIds, errorCodes },
    all,
    phase: filter.phase,
    corrections: {},
    reason: form.reason,
    operator,
    dryRun: false,
  });
}
