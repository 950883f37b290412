import { sleep } from '../sleep.js';
import { expandInputs, type ListingRules } from './inputs.js';

type Listing = ReturnType<typeof expandInputs>;

export interface NamedWaitOptions {
  signal?: AbortSignal | undefined;
  /** Told once, before the wait: how long and for which files. */
  onWait?: (message: string, files: string[]) => void;
  /** The clock (tests). */
  now?: () => number;
}

/**
 * A file named on the command line is one the user asked for: one left because its last line had
 * no line end within the quiet period is waited for, not left silently for a next run that a user
 * at a terminal never starts (`load file.csv` said "nothing to load", exit 0). The run waits out
 * the rest of the quiet period (never more than --settle), then lists its arguments again, in
 * their order (the load order): a file that stayed still is read as it is; one modified during
 * the wait is still being written, and is left with a reason that says so (the run then exits 2,
 * src/pipeline/load.ts). An interrupted wait returns the listing as it was.
 */
export async function waitForNamedFiles(
  args: string[],
  rules: ListingRules,
  first: Listing,
  options: NamedWaitOptions = {},
): Promise<Listing> {
  const named = first.notReady.filter((n) => n.named !== undefined);
  if (named.length === 0) return first;
  const now = options.now ?? Date.now;
  const endsAt = Math.max(...named.map((n) => n.named?.quietEndsAt ?? 0));
  const started = now();
  // a modification time in the future (another host's clock) is waited on for --settle at most
  const waitMs = Math.max(0, Math.min(rules.settleMs, endsAt - started));
  const files = named.map((n) => n.file);
  options.onWait?.(
    `waiting ${(waitMs / 1000).toFixed(1)} s for the quiet period (--settle ${rules.settleMs / 1000} s) of ${files.join(', ')}: its last line has no line end`,
    files,
  );
  await sleep(waitMs, options.signal);
  if (options.signal?.aborted === true) return first;
  // judged at the end of the wait at the earliest: a timer may fire a millisecond early
  const again = expandInputs(args, { ...rules, now: Math.max(now(), started + waitMs) });
  return {
    ...again,
    notReady: again.notReady.map((n) =>
      n.named === undefined
        ? n
        : {
            ...n,
            reason: `${n.file}: not read: its last line has no line end, and after waiting ${(waitMs / 1000).toFixed(1)} s it was still modified within the quiet period (--settle ${rules.settleMs / 1000} s): still being written? run again once it is complete (--settle 0 reads it as it is)`,
          },
    ),
  };
}
