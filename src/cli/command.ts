/**
 * What a command module is given and gives back: its usage (src/cli/usage.ts prints it) and a
 * run that returns the exit code. Also what the commands share: stdout (one document), opening
 * the database with the CLI's hooks, and the options of a processing run.
 */
import type { Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { Engine } from '../engine/types.js';
import type { OrderLoader } from '../loader.js';
import { DEFAULT_LOAD_OPTIONS, type DatabaseState, type LoadReport, type ProcessReport } from '../pipeline/load-options.js';
import { escapeControl } from './escape.js';
import { defaultConnectTimeoutMs, defaultLockTimeoutMs, type CliOptions, type Command } from './options.js';
import { OPTIONS, type OptionName } from './option-table.js';
import { UserError } from '../errors.js';
import type { DbTarget } from '../engine/db-url.js';
import { DATABASE_NAMES, targetCapabilities } from '../engine/open.js';
import { createProgress, type Progress } from './progress.js';

/**
 * One line of a command's usage: an option of the table with its `detail` (else `help`) line,
 * or with this command's own words (and placeholder); several options can share a line.
 */
export type OptionLine = OptionName | { option: OptionName | readonly OptionName[]; arg?: string; text: string };

export interface CommandUsage {
  /** `order-loader help`: the command with its arguments, and what it does (continued on further lines). */
  label: string;
  summary: string;
  /** The command's own usage: what follows `Usage: order-loader `, what it does, its option lines, its exit codes. */
  synopsis: string;
  about: string;
  options?: readonly OptionLine[];
  exitCodes?: string;
}

/** What the end-of-run log line tells besides the exit code: run ids and counts, when the command has them. */
export type RunSummary = Record<string, unknown>;

/** A stream the command line writes to: the process's stdout or stderr, or a test's. */
export type CliStream = Writable & { isTTY?: boolean | undefined; columns?: number | undefined };

/**
 * Where a run of the command line writes and whose environment it reads: the process's own
 * for the bin (src/cli.ts), a test's when the CLI runs inside the test's process.
 */
export interface CliIo {
  stdout: CliStream;
  stderr: CliStream;
  env: NodeJS.ProcessEnv;
}

/** What runCli and the bin's signal handlers share with the running command. */
export interface Session {
  /** Where this run writes and whose environment it reads. */
  io: CliIo;
  /** Set once stdout got its document: a failure after it (closing the database) must not add a second. */
  printed: boolean;
  /** Set once the database is open: what a second signal cancels before exiting. */
  cancelRunning: (() => Promise<void>) | undefined;
  /** Set once the database is open, for commands that process: how long a blocked chunk may hold up the first signal. */
  blockedChunkNote: string;
  /** The command's report (load, stage, process), for --metrics-file. */
  report?: LoadReport | ProcessReport | undefined;
  /** The database's state when the command's work was committed (load, stage, process with --metrics-file). */
  state?: DatabaseState | undefined;
  /**
   * Write --metrics-file now with this exit code (once; set by runCli): `load` and `stage` call it
   * while they still hold the inbox lock, so that a run queued behind them writes after them.
   */
  writeMetrics?: ((exitCode: number) => void) | undefined;
  /** performance.now() when runCli started: the whole command's time is measured from there. */
  startedAt: number;
  /** How long opening (and migrating) the database took, once it is open. */
  openMs?: number | undefined;
}

/** The whole command's time so far and its first part, opening and migrating the database. */
export interface CommandTiming {
  commandMs: number;
  openMs: number;
}

export function commandTiming(session: Session): CommandTiming {
  return { commandMs: performance.now() - session.startedAt, openMs: session.openMs ?? 0 };
}

export function newSession(io: CliIo): Session {
  return { io, printed: false, cancelRunning: undefined, blockedChunkNote: '', startedAt: performance.now() };
}

/** The database's state for --metrics-file, when one is asked for (a count over order_stage otherwise spared). */
export async function readStateForMetrics(ctx: CommandContext, loader: OrderLoader): Promise<void> {
  if (ctx.options['metrics-file'] !== undefined) ctx.session.state = await loader.databaseState();
}

export interface CommandContext {
  command: Command;
  files: string[];
  options: CliOptions;
  /** The options given on the command line (src/cli/options.ts). */
  given: readonly OptionName[];
  logger: Logger;
  signal: AbortSignal;
  session: Session;
  summary: RunSummary;
}

export interface CommandSpec {
  usage: CommandUsage;
  run(ctx: CommandContext): Promise<number>;
}

/** The command's document on stdout. */
export function print(session: Session, text: string): void {
  session.printed = true;
  session.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** A report on stdout: as JSON with --json, else as `render` puts it. */
export function printReport<T>(ctx: CommandContext, report: T, render: (report: T) => string): void {
  print(ctx.session, ctx.options.json ? JSON.stringify(report) : render(report));
}

/** The reason a run stopped early, on stderr (the report on stdout tells it too). */
export function sayAborted(session: Session, aborted: string | null | undefined): void {
  if (aborted) session.io.stderr.write(`order-loader: ${escapeControl(aborted)}\n`);
}

function lockWaitNote(engine: string, lockWaitMs: number): string {
  const waiting = '; a chunk waiting for a row another session holds';
  if (lockWaitMs === 0) return `${waiting} waits until it is released (--row-lock-wait 0)`;
  // Oracle's FOR UPDATE WAIT takes whole seconds (src/engine/oracle/merge.ts lockWaitSeconds)
  if (engine === 'oracle')
    return `${waiting} gives up on it after at most ${Math.ceil(lockWaitMs / 1000)} s (--row-lock-wait, whole seconds)`;
  const limit = lockWaitMs % 1000 === 0 ? `${lockWaitMs / 1000} s` : `${lockWaitMs} ms`;
  return `${waiting} gives up on it after at most ${limit} (--row-lock-wait)`;
}

/**
 * An option given that this database cannot honour (the option table's `needs`): refused in one
 * line naming the command, the option and why, before anything is opened.
 */
function refuseUnhonoured(ctx: CommandContext, target: DbTarget): void {
  const can = targetCapabilities(target);
  for (const name of ctx.given) {
    const needs = (OPTIONS[name] as { needs?: (typeof OPTIONS)['workers']['needs'] }).needs;
    const asks = needs?.asks ?? (() => true);
    if (needs !== undefined && needs.commands.includes(ctx.command) && !can[needs.capability] && asks(ctx.options[name]))
      throw new UserError(`${ctx.command} --${name} is refused on ${DATABASE_NAMES[target.kind]}: ${needs.why}`);
  }
}

/** 2 workers by default: measured best on 2 cores with staging alongside (bench/RESULTS.md). */
export function workersOf(options: CliOptions): number {
  return Math.max(...(options.workers ?? [DEFAULT_LOAD_OPTIONS.workers]));
}

/**
 * Open the database for the command, run `use` with it, close it. `processes`: the command
 * processes chunks, so the first signal says how long a blocked chunk may hold it up.
 */
export async function withLoader(
  ctx: CommandContext,
  how: { workers?: number; processes?: boolean; migrate?: (engine: Engine) => boolean },
  use: (loader: OrderLoader) => Promise<number>,
): Promise<number> {
  const { command, options, logger } = ctx;
  const { stderr, env } = ctx.session.io;
  const opening = performance.now();
  // the loader (the pipeline, the engines' code) is imported by the commands that open a
  // database: a dry run, a preview, help and a refused command line start without it
  const { OrderLoader } = await import('../loader.js');
  const loader = await OrderLoader.open({
    beforeOpen: (target) => refuseUnhonoured(ctx, target),
    db: options.db,
    env,
    logger,
    workers: how.workers ?? workersOf(options),
    signal: ctx.signal,
    command,
    // init applies the migrations itself, so that it can say which it applied
    migrate: command === 'init' ? false : (how.migrate ?? true),
    lockTimeoutMs: options['lock-timeout'] ?? defaultLockTimeoutMs(command),
    connectTimeoutMs: options['connect-timeout'] ?? defaultConnectTimeoutMs(command),
    // a person at a terminal (logs at warn) is told why nothing happens yet
    onLockWait:
      stderr.isTTY === true && !logger.isLevelEnabled('info')
        ? (message) => stderr.write(`order-loader: ${escapeControl(message)}\n`)
        : undefined,
  });
  ctx.session.openMs = performance.now() - opening;
  // PGlite runs inside this process and ends with it; Oracle has no cancel here yet
  if (loader.engine.kind === 'postgres') ctx.session.cancelRunning = () => loader.cancelRunning();
  if (how.processes === true) ctx.session.blockedChunkNote = lockWaitNote(loader.engine.kind, options['row-lock-wait']);
  try {
    return await use(loader);
  } finally {
    await loader.close();
  }
}

/** The progress line on a terminal (none with --json); a wait says what it may be waiting for. */
export function progressOf(ctx: CommandContext): Progress {
  const lockWaitMs = ctx.options['row-lock-wait'];
  const waitNote = () =>
    lockWaitMs === 0
      ? ' (a row another session holds is waited for until released: --row-lock-wait 0)'
      : ` (a row another session holds is given up after ${lockWaitMs >= 1000 ? `${Math.ceil(lockWaitMs / 1000)} s` : `${lockWaitMs} ms`}: --row-lock-wait)`;
  return ctx.options.json
    ? createProgress({ isTTY: false, write: () => true })
    : createProgress(ctx.session.io.stderr, { waitNote: ctx.command === 'stage' ? undefined : waitNote });
}

/** The options of a staging and processing run, from the command line. */
export function runOptions(ctx: CommandContext, progress: Progress) {
  const { options } = ctx;
  return {
    chunkSize: options['chunk-size'],
    batchSize: options['batch-size'],
    workers: workersOf(options),
    maxErrors: options['max-errors'],
    maxAttempts: options['max-attempts'],
    lockWaitMs: options['row-lock-wait'],
    encoding: options.encoding,
    delimiter: options.delimiter,
    // processing beside staging is the default (server databases); --overlap is kept for scripts
    overlap: !options['no-overlap'],
    restage: options.restage,
    maxInflate: options['max-inflate'],
    signal: ctx.signal,
    onStageProgress: (file: string, bytes: number, size: number, lines: number) => progress.staging(file, bytes, size, lines),
    onProcessStart: (total: number) => progress.processingStart(total),
    onProcessProgress: (counts: { claimed: number }) => progress.processing(counts.claimed),
  };
}
