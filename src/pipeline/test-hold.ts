import { existsSync } from 'node:fs';
import type { Logger } from 'pino';

/**
 * For the survival tests only (test/survival/journal-kill.test.ts, overlapping-named-loads.test.ts):
 * ORDER_LOADER_TEST_HOLD_AFTER=<step>:<n> holds the process for ten minutes right after the
 * n-th time it committed that step of a run's journal ('run_started' for a run row, else the
 * event's name; 'staging_ended' once a load's staging ended and its holds were released, before
 * its processing's last pass), once it has logged "holding after <step> #<n>", so that the test kills it
 * exactly there. With ORDER_LOADER_TEST_HOLD_UNTIL=<path> the hold ends as soon as that path
 * exists (a test lets two runs meet at one step, then lets the held one go on). Unset (always,
 * outside those tests): nothing, not even a count kept.
 */
const seen = new Map<string, number>();

const HOLD_MS = 600_000;
const POLL_MS = 50;

export async function holdAfterStep(step: string, logger: Logger): Promise<void> {
  const spec = process.env.ORDER_LOADER_TEST_HOLD_AFTER;
  if (spec === undefined || spec === '') return;
  const n = (seen.get(step) ?? 0) + 1;
  seen.set(step, n);
  if (spec !== `${step}:${n}`) return;
  logger.warn({ step, n }, `holding after ${step} #${n} (ORDER_LOADER_TEST_HOLD_AFTER)`);
  const until = process.env.ORDER_LOADER_TEST_HOLD_UNTIL;
  const end = Date.now() + HOLD_MS;
  while (Date.now() < end) {
    if (until !== undefined && until !== '' && existsSync(until)) return;
    await new Promise<void>((resolve) => setTimeout(resolve, until === undefined || until === '' ? HOLD_MS : POLL_MS));
  }
}
