import type { Logger } from 'pino';

/**
 * For the journal kill -9 survival test only (test/survival/journal-kill.test.ts):
 * ORDER_LOADER_TEST_HOLD_AFTER=<step>:<n> holds the process for ten minutes right after the
 * n-th time it committed that step of a run's journal ('run_started' for a run row, else the
 * event's name), once it has logged "holding after <step> #<n>", so that the test kills it
 * exactly there. Unset (always, outside that test): nothing, not even a count kept.
 */
const seen = new Map<string, number>();

export async function holdAfterStep(step: string, logger: Logger): Promise<void> {
  const spec = process.env.ORDER_LOADER_TEST_HOLD_AFTER;
  if (spec === undefined || spec === '') return;
  const n = (seen.get(step) ?? 0) + 1;
  seen.set(step, n);
  if (spec !== `${step}:${n}`) return;
  logger.warn({ step, n }, `holding after ${step} #${n} (ORDER_LOADER_TEST_HOLD_AFTER)`);
  await new Promise<void>((resolve) => setTimeout(resolve, 600_000));
}
