/**
 * The command line: parse arguments, validate them (zod), run the command (src/cli/commands/),
 * and return its exit code. Each command returns its own: 0 done, 2 finished with ERROR or
 * rejected rows (the report's exitCode, src/pipeline/outcome.ts), 1 could not finish; here a
 * failure, or no command at all, is 1. It writes only to the streams it is given and touches
 * nothing of the process (no exit, no exit code, no signal handler): the bin (src/cli.ts) does
 * that, and tests run it inside their own process.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { COMMANDS, parseCommandLine, type CliOptions, type ParsedCommandLine } from './options.js';
import { renderFailureMarkdown } from './render-markdown.js';
import { COMMAND_TABLE } from './commands/index.js';
import { newSession, print, type CliIo, type RunSummary, type Session } from './command.js';
import { USAGE, usageFor } from './usage.js';
import { openLogFile } from './output-files.js';
import { RunAbortedError, UserError } from '../errors.js';
import { redactSecrets } from '../engine/db-url.js';
import { createCommandLogger } from '../log.js';
import { escapeControl } from './escape.js';
import { EXIT_FAILED, EXIT_OK } from '../pipeline/outcome.js';
import { writeRunMetrics } from './metrics-file.js';

/** The package's version: its package.json is the first one above this file (built or not). */
function version(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** Logs on a terminal are read by a person; anywhere else (a file, a pipe, cron) by tools. */
function logsToTerminal(options: CliOptions, io: CliIo): boolean {
  return options['log-file'] === undefined && io.stderr.isTTY === true;
}

function cliLogger(options: CliOptions, io: CliIo): Logger {
  const logFile = options['log-file'];
  return createCommandLogger({
    level: options['log-level'],
    logFile,
    logDestination: logFile === undefined ? undefined : openLogFile(logFile, io.stderr),
    stderr: io.stderr,
  });
}

/** --json among the arguments as given (before a `--`): also when they cannot be parsed. */
export function wantsJson(argv: string[]): boolean {
  const terminator = argv.indexOf('--');
  return (terminator === -1 ? argv : argv.slice(0, terminator)).includes('--json');
}

/** --format markdown among the arguments as given (before a `--`): also when they cannot be parsed. */
export function wantsMarkdown(argv: string[]): boolean {
  const terminator = argv.indexOf('--');
  const args = terminator === -1 ? argv : argv.slice(0, terminator);
  return args.some((a, i) => a === '--format=markdown' || (a === '--format' && args[i + 1] === 'markdown'));
}

/** What kind of failure ended the command, for the --json error document. */
function errorKind(error: unknown): 'user' | 'database' | 'interrupted' | 'max-errors' | 'unexpected' {
  if (error instanceof UserError) return 'user';
  if (error instanceof RunAbortedError) return error.reason === 'interrupted' || error.reason === 'max-errors' ? error.reason : 'database';
  return 'unexpected';
}

/**
 * Run the command line `argv` (the arguments after the program name) and return its exit code.
 * `run.session`: made with newSession(io), when the caller shares it (the bin's signal
 * handlers); `run.signal`: stops a processing run as a first SIGINT does.
 */
export async function runCli(argv: string[], io: CliIo, run: { session?: Session; signal?: AbortSignal } = {}): Promise<number> {
  const session = run.session ?? newSession(io);
  const signal = run.signal ?? new AbortController().signal;
  let code: number;
  let logger: Logger | undefined;
  let cmd: ParsedCommandLine | undefined;
  const started = session.startedAt;
  const summary: RunSummary = {};
  let metricsWritten = false;
  session.writeMetrics = (exitCode) => {
    // a dry run and a preview write nothing
    if (metricsWritten || cmd?.command == null || cmd.help !== undefined || cmd.options['dry-run'] || cmd.command === 'preview') return;
    metricsWritten = true;
    writeRunMetrics(
      cmd.options['metrics-file'],
      {
        command: cmd.command,
        exitCode,
        durationMs: Math.round(performance.now() - started),
        finishedAt: new Date(),
        report: session.report,
        state: session.state,
      },
      io.stderr,
      logger,
    );
  };
  try {
    cmd = parseCommandLine(argv);
    if (cmd.help !== undefined) {
      print(session, usageFor(cmd.help.command));
      code = EXIT_OK;
    } else if (cmd.options.version) {
      print(session, version());
      code = EXIT_OK;
    } else if (cmd.command === null) {
      print(session, USAGE);
      code = EXIT_FAILED;
    } else {
      logger = cliLogger(cmd.options, io);
      const { command, files, options, given } = cmd;
      code = await COMMAND_TABLE[command].run({ command, files, options, given, logger, signal, session, summary });
    }
  } catch (error) {
    const user = error instanceof UserError || error instanceof RunAbortedError;
    const message = redactSecrets(error instanceof Error ? error.message : String(error));
    if (user) {
      io.stderr.write(`order-loader: ${escapeControl(message)}\n`);
    } else {
      // a bug, not a user error: the stack only on request, so an operator still sees one line
      const detail = error instanceof Error ? (io.env.ORDER_LOADER_DEBUG ? (error.stack ?? error.message) : error.message) : String(error);
      io.stderr.write(`order-loader: unexpected error: ${escapeControl(redactSecrets(detail))}\n`);
    }
    // --json promises one JSON document on stdout, also when the command fails
    if (wantsJson(argv) && !session.printed) {
      print(session, JSON.stringify({ error: { kind: errorKind(error), message }, exitCode: EXIT_FAILED }));
    }
    // and --format markdown a report, the one a cron job mails every morning
    else if (wantsMarkdown(argv) && !session.printed) {
      const command = cmd?.command ?? argv.find((a) => (COMMANDS as readonly string[]).includes(a)) ?? null;
      print(session, renderFailureMarkdown(command, message, new Date(), performance.now() - started));
    }
    // The error that ends the command goes to the log too, so that a --log-file (or a cron
    // job's captured JSON) holds it; on a terminal the line above already says it.
    if (logger !== undefined && cmd !== undefined && !logsToTerminal(cmd.options, io)) {
      logger.error(
        { command: cmd.command, error: message, ...(user ? {} : { stack: error instanceof Error ? error.stack : undefined }) },
        `${cmd.command ?? 'order-loader'} failed: ${message}`,
      );
    }
    summary.error = message;
    code = EXIT_FAILED;
  }
  const durationMs = Math.round(performance.now() - started);
  // unless the command wrote them already (load and stage: before they let go of the inbox lock)
  session.writeMetrics(code);
  // How the run ended, at info: the last line of every run's log.
  logger?.info(
    { command: cmd?.command, exitCode: code, durationMs, ...summary },
    `${cmd?.command ?? 'order-loader'} ended with exit code ${code}`,
  );
  return code;
}
