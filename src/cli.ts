#!/usr/bin/env node
/**
 * The command line: parse arguments, validate them (zod), run the command (src/cli/commands/),
 * and end with its exit code. Each command returns its own: 0 done, 2 finished with ERROR or
 * rejected rows (the report's exitCode, src/pipeline/outcome.ts), 1 could not finish; here a
 * failure, or no command at all, is 1. Signals: src/cli/signals.ts.
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { parseCommandLine, type CliOptions, type ParsedCommandLine } from './cli/options.js';
import { COMMAND_TABLE } from './cli/commands/index.js';
import { print, type RunSummary, type Session } from './cli/command.js';
import { stopOnSignals } from './cli/signals.js';
import { USAGE, usageFor } from './cli/usage.js';
import { openLogFile } from './cli/output-files.js';
import { RunAbortedError, UserError } from './errors.js';
import { redactSecrets } from './engine/db-url.js';
import { createCommandLogger } from './log.js';
import { escapeControl } from './cli/escape.js';
import { EXIT_FAILED, EXIT_OK } from './pipeline/outcome.js';
import { writeRunMetrics } from './cli/metrics-file.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Logs on a terminal are read by a person; anywhere else (a file, a pipe, cron) by tools. */
function logsToTerminal(options: CliOptions): boolean {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-boolean-literal-compare -- isTTY is undefined, not false, when stderr is not a terminal (its type says boolean)
  return options['log-file'] === undefined && process.stderr.isTTY === true;
}

function cliLogger(options: CliOptions): Logger {
  const logFile = options['log-file'];
  return createCommandLogger({
    level: options['log-level'],
    logFile,
    logDestination: logFile === undefined ? undefined : openLogFile(logFile),
  });
}

/** --json among the arguments as given (before a `--`): also when they cannot be parsed. */
function wantsJson(argv: string[]): boolean {
  const terminator = argv.indexOf('--');
  return (terminator === -1 ? argv : argv.slice(0, terminator)).includes('--json');
}

/** What kind of failure ended the command, for the --json error document. */
function errorKind(error: unknown): 'user' | 'database' | 'interrupted' | 'max-errors' | 'unexpected' {
  if (error instanceof UserError) return 'user';
  if (error instanceof RunAbortedError) return error.reason === 'interrupted' || error.reason === 'max-errors' ? error.reason : 'database';
  return 'unexpected';
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const session: Session = { printed: false, cancelRunning: undefined, blockedChunkNote: '' };
  const controller = new AbortController();
  stopOnSignals(session, controller, (message) => {
    process.stderr.write(`order-loader: ${message}\n`);
    // --json promises one document on stdout, also when a second signal ends the command
    if (wantsJson(argv) && !session.printed)
      print(session, JSON.stringify({ error: { kind: 'interrupted', message }, exitCode: EXIT_FAILED }));
  });
  // A reader that went away (`order-loader errors | head -1`) is not an error: without a
  // listener the EPIPE of a later write would end the process with a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });

  let code: number;
  let logger: Logger | undefined;
  let cmd: ParsedCommandLine | undefined;
  const started = performance.now();
  const summary: RunSummary = {};
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
      logger = cliLogger(cmd.options);
      const { command, files, options } = cmd;
      code = await COMMAND_TABLE[command].run({ command, files, options, logger, signal: controller.signal, session, summary });
    }
  } catch (error) {
    const user = error instanceof UserError || error instanceof RunAbortedError;
    const message = redactSecrets(error instanceof Error ? error.message : String(error));
    if (user) {
      process.stderr.write(`order-loader: ${escapeControl(message)}\n`);
    } else {
      // a bug, not a user error: the stack only on request, so an operator still sees one line
      const detail =
        error instanceof Error ? (process.env.ORDER_LOADER_DEBUG ? (error.stack ?? error.message) : error.message) : String(error);
      process.stderr.write(`order-loader: unexpected error: ${escapeControl(redactSecrets(detail))}\n`);
    }
    // --json promises one JSON document on stdout, also when the command fails
    if (wantsJson(argv) && !session.printed) {
      print(session, JSON.stringify({ error: { kind: errorKind(error), message }, exitCode: EXIT_FAILED }));
    }
    // The error that ends the command goes to the log too, so that a --log-file (or a cron
    // job's captured JSON) holds it; on a terminal the line above already says it.
    if (logger !== undefined && cmd !== undefined && !logsToTerminal(cmd.options)) {
      logger.error(
        { command: cmd.command, error: message, ...(user ? {} : { stack: error instanceof Error ? error.stack : undefined }) },
        `${cmd.command ?? 'order-loader'} failed: ${message}`,
      );
    }
    summary.error = message;
    code = EXIT_FAILED;
  }
  const durationMs = Math.round(performance.now() - started);
  if (cmd?.command != null && cmd.help === undefined && !cmd.options['dry-run'])
    writeRunMetrics(
      cmd.options['metrics-file'],
      { command: cmd.command, exitCode: code, durationMs, finishedAt: new Date(), report: session.report },
      logger,
    );
  // How the run ended, at info: the last line of every run's log.
  logger?.info(
    { command: cmd?.command, exitCode: code, durationMs, ...summary },
    `${cmd?.command ?? 'order-loader'} ended with exit code ${code}`,
  );
  process.exitCode = code;
}

await main();
