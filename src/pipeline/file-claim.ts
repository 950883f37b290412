/**
 * One run at a time per file identity (src/engine/contract.ts FileClaims). Two loads of the same
 * files at once on a server database, without an inbox lock between them (files named on the
 * command line: two cron entries, an operator rerunning by hand while the night's run goes on),
 * would otherwise both read a file's staging history, both find it unstaged or half staged, and
 * stage it side by side: the slower one then writes an earlier file's lines over a later file's
 * rows that the faster one staged and released, and processing merges a line the set overrides;
 * two runs that start on a new file at the same instant would each make a load of it.
 *
 * So a run claims a file's identity before it reads the staging history, and holds the claim
 * until the file's staging ended (staged, stopped or interrupted, its event committed). A second
 * run waits (bounded by --lock-timeout, as for the inbox lock), then reads the history the first
 * committed: the file is staged (skipped) or resumed where the first stopped. A run holds at most
 * one claim at a time and waits for a claim holding none, so two runs never wait for each other.
 * A killed holder's claim ends with its database session.
 */
import { createHash } from 'node:crypto';
import type { FileClaim } from '../engine/contract.js';
import { DatabaseBusyError, formatMs } from '../engine/folder-lock.js';
import type { FileIdentity } from '../engine/types.js';
import { RunAbortedError } from '../errors.js';
import type { LoadJournal } from './load-journal.js';
import type { LoadOptions } from './load-options.js';
import type { LoadPort } from './ports.js';
import type { retried } from './run-record.js';

/** How long a run waits for another run's claim on a file unless told (the CLI's --lock-timeout default). */
export const DEFAULT_CLAIM_WAIT_MS = 10 * 60_000;

/** The least time between two tries of a claim another run holds. */
const MIN_TRY_MS = 250;

/** Wait `ms` (nothing when not positive), or until the signal. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** What claiming needs of the run. */
export interface ClaimingRun {
  engine: LoadPort;
  options: LoadOptions;
  db: ReturnType<typeof retried>;
  journal: LoadJournal;
  signal: AbortSignal;
}

/** The claim's key: the hash of everything that makes the file's identity (the staging history's match). */
export function claimKey(identity: FileIdentity): string {
  const parts = [identity.sha256, identity.encoding, identity.delimiter, identity.profile ?? 'builtin'];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** The run that most likely holds the claim: the latest other RUNNING run of these bytes (null: not started yet, or not found). */
async function holderOf(run: ClaimingRun, sha256: string): Promise<number | null> {
  const running = await run.db('reading the running runs', () => run.engine.runningRuns());
  const others = running.filter((r) => r.fileSha256 === sha256 && !run.journal.started(r.runId)).map((r) => r.runId);
  return others.length === 0 ? null : Math.max(...others);
}

/**
 * Claim the file's identity, waiting while another run holds it, at most `options.claimWaitMs`
 * (then a DatabaseBusyError, exit 1); interrupted, a RunAbortedError.
 */
export async function claimFile(run: ClaimingRun, identity: FileIdentity, path: string): Promise<FileClaim> {
  const { engine, options } = run;
  const key = claimKey(identity);
  const claim = await run.db('claiming the file', () => engine.claimFile(key));
  if (claim !== null) return claim;
  const holder = await holderOf(run, identity.sha256);
  const who = holder === null ? 'another run' : `run ${holder}`;
  const timeoutMs = options.claimWaitMs ?? DEFAULT_CLAIM_WAIT_MS;
  options.logger.warn(
    { file: path, holder },
    `${path}: waiting for ${who} that stages the same file (up to ${formatMs(timeoutMs)}, --lock-timeout)`,
  );
  const started = Date.now();
  for (;;) {
    if (run.signal.aborted)
      throw new RunAbortedError(`${path}: interrupted while waiting for ${who} that stages the same file`, 'interrupted');
    if (Date.now() - started >= timeoutMs)
      throw new DatabaseBusyError(
        `${path}: ${who} stages the same file; ${timeoutMs === 0 ? 'not waiting (--lock-timeout 5m waits)' : `gave up after waiting ${formatMs(timeoutMs)} (--lock-timeout)`}`,
        null,
      );
    const tried = Date.now();
    const taken = await run.db('claiming the file', () => engine.claimFile(key));
    // an engine's try waits about a second itself; one that answers at once is not asked again at once
    if (taken === null) await pause(MIN_TRY_MS - (Date.now() - tried), run.signal);
    if (taken !== null) {
      options.logger.info({ file: path, holder, waitedMs: Date.now() - started }, `${path}: ${who} ended its staging of the file`);
      return taken;
    }
  }
}
