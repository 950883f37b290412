#!/usr/bin/env node
/**
 * The command line: parse arguments, validate them (zod), call the library, map the outcome to
 * an exit code. SIGINT/SIGTERM: the current chunk finishes or rolls back, then the run stops
 * (a second signal cancels the running statements and exits; the database rolls the open
 * transactions back).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { defaultLockTimeoutMs, parseCommandLine, USAGE, usageFor, type CliOptions, type ParsedCommandLine } from './cli/options.js';
import { renderBench, renderDryRun, renderLoadReport, renderManualChanges, renderProcessReport, renderRuns, renderStatus } from './cli/render.js';
import { createProgress } from './cli/progress.js';
import { runBench } from './bench/run-bench.js';
import { renderChart } from './bench/chart.js';
import { writeErrorsCsv, writeErrorsJson } from './cli/errors-csv.js';
import { checkChartPath, openLogFile } from './cli/output-files.js';
import { checkRetryRequest, defaultOperator, parseCorrections } from './pipeline/operations.js';
import { RunAbortedError, UserError } from './errors.js';
import { redactSecrets } from './engine/db-url.js';
import { OrderLoader } from './loader.js';
import { DEFAULT_LOAD_OPTIONS } from './pipeline/load.js';
import { createCommandLogger } from './log.js';
import { escapeControl } from './cli/escape.js';
import { openOrderFile } from './input/order-file.js';
import { dryRunExitCode, EXIT_FAILED, EXIT_OK, EXIT_ROWS_REJECTED } from './pipeline/outcome.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Set once stdout got its document: a failure after it (closing the database) must not add a second. */
let printed = false;

function print(text: string): void {
  printed = true;
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Set once the database is open: what a second signal cancels before exiting. */
let cancelRunning: (() => Promise<void>) | undefined;
/** Set once the database is open, for commands that process: how long a blocked chunk may hold up the first signal. */
let blockedChunkNote = '';

function lockWaitNote(engine: string, lockWaitMs: number): string {
  const waiting = '; a chunk waiting for a row another session holds';
  if (engine === 'oracle') return `${waiting} waits until it is released (Oracle has no lock timeout)`;
  if (lockWaitMs === 0) return `${waiting} waits until it is released (--row-lock-wait 0)`;
  const limit = lockWaitMs % 1000 === 0 ? `${lockWaitMs / 1000} s` : `${lockWaitMs} ms`;
  return `${waiting} gives up on it after at most ${limit} (--row-lock-wait)`;
}

/** Logs on a terminal are read by a person; anywhere else (a file, a pipe, cron) by tools. */
function logsToTerminal(options: CliOptions): boolean {
  return options['log-file'] === undefined && process.stderr.isTTY === true;
}

function cliLogger(options: CliOptions): Logger {
  const logFile = options['log-file'];
  return createCommandLogger({ level: options['log-level'], logFile, logDestination: logFile === undefined ? undefined : openLogFile(logFile) });
}

/** What the end-of-run log line tells besides the exit code: run ids and counts, when the command has them. */
type RunSummary = Record<string, unknown>;

async function run(cmd: ParsedCommandLine & { command: NonNullable<ParsedCommandLine['command']> }, signal: AbortSignal, logger: Logger, summary: RunSummary): Promise<number> {
  const { command, options } = cmd;
  // A user error in the files is reported before the database is even opened.
  for (const file of cmd.files) {
    if (!existsSync(file)) throw new UserError(`${file}: no such file`);
  }
  if (command === 'bench') checkChartPath(options.chart);
  // a retry request's mistakes (no --reason, no selector, a bad --set) are said before the database is opened
  const retryRequest =
    command === 'retry'
      ? {
          selector: { stageIds: options['stage-id'], sourceKeys: options['source-key'], errorCodes: options['error-code'], loadIds: options['load-id'] },
          all: options['all-errors'], corrections: parseCorrections(options.set), reason: options.reason ?? '',
          operator: options.operator ?? defaultOperator(), dryRun: options['dry-run'],
        }
      : null;
  if (retryRequest !== null) checkRetryRequest(retryRequest);
  if (options['dry-run'] && (command === 'load' || command === 'stage')) {
    // --dry-run writes nothing and needs no database
    const results = await OrderLoader.dryRunFiles(cmd.files, { encoding: options.encoding, delimiter: options.delimiter, batchSize: options['batch-size'], logger });
    print(options.json ? JSON.stringify({ dryRun: true, files: results }) : renderDryRun(results));
    return dryRunExitCode(results, command);
  }
  if (command === 'load' || command === 'stage') {
    // Every header is checked before the database is opened: creating and migrating a fresh
    // embedded database takes seconds, and a file missing a column would be refused anyway.
    for (const path of cmd.files) (await openOrderFile(path, { encoding: options.encoding, delimiter: options.delimiter })).close();
  }
  // 2 workers by default: measured best on 2 cores with staging alongside (bench/RESULTS.md)
  const workerList = options.workers ?? (command === 'bench' ? [1, 2, 4] : [DEFAULT_LOAD_OPTIONS.workers]);
  const workers = Math.max(...workerList);
  const loader = await OrderLoader.open({
    db: options.db, logger, workers, signal, command,
    // init applies the migrations itself, so that it can say which it applied
    migrate: command !== 'init',
    lockTimeoutMs: options['lock-timeout'] ?? defaultLockTimeoutMs(command),
    // a person at a terminal (logs at warn) is told why nothing happens yet
    onLockWait: process.stderr.isTTY === true && !logger.isLevelEnabled('info') ? (message) => process.stderr.write(`order-loader: ${escapeControl(message)}\n`) : undefined,
  });
  // PGlite runs inside this process and ends with it; Oracle has no cancel here yet
  if (loader.engine.kind === 'postgres') cancelRunning = () => loader.cancelRunning();
  if (command === 'load' || command === 'process' || command === 'retry') blockedChunkNote = lockWaitNote(loader.engine.kind, options['row-lock-wait']);
  const progress = options.json ? createProgress({ isTTY: false } as NodeJS.WriteStream) : createProgress();
  try {
    const common = {
      chunkSize: options['chunk-size'],
      batchSize: options['batch-size'],
      workers,
      maxErrors: options['max-errors'],
      maxAttempts: options['max-attempts'],
      lockWaitMs: options['row-lock-wait'],
      encoding: options.encoding,
      delimiter: options.delimiter,
      overlap: options.overlap,
      restage: options.restage,
      signal,
      onStageProgress: (file: string, bytes: number, size: number, lines: number) => progress.staging(file, bytes, size, lines),
      onProcessStart: (total: number) => progress.processingStart(total),
      onProcessProgress: (counts: { claimed: number }) => progress.processing(counts.claimed),
    };
    switch (command) {
      case 'init': {
        const applied = await loader.init();
        print(options.json ? JSON.stringify({ applied }) : applied.length > 0 ? `applied: ${applied.join(', ')}` : 'schema is up to date');
        return EXIT_OK;
      }
      case 'load':
      case 'stage': {
        const report = command === 'load' ? await loader.load(cmd.files, common) : await loader.stage(cmd.files, common);
        progress.clear();
        Object.assign(summary, { runIds: report.files.map((f) => f.runId), files: report.files.map((f) => ({ file: f.file, loadId: f.loadId, ...f.counts, tally: f.tally })), process: report.process, aborted: report.aborted });
        print(options.json ? JSON.stringify(report) : renderLoadReport(report));
        if (report.aborted !== null) process.stderr.write(`order-loader: ${escapeControl(report.aborted)}\n`);
        return report.exitCode;
      }
      case 'process': {
        const report = await loader.process(common);
        progress.clear();
        Object.assign(summary, { runIds: [report.runId], process: report.process, aborted: report.aborted });
        print(options.json ? JSON.stringify(report) : renderProcessReport(report));
        if (report.aborted !== null) process.stderr.write(`order-loader: ${escapeControl(report.aborted)}\n`);
        return report.exitCode;
      }
      case 'status': {
        const report = await loader.status();
        print(options.json ? JSON.stringify(report) : renderStatus(report));
        return EXIT_OK;
      }
      case 'retry': {
        if (retryRequest === null) throw new Error('retry: the request was not built');
        const { retry, process: processed } = await loader.retry(retryRequest, { ...common, process: !options['no-process'] });
        progress.clear();
        Object.assign(summary, { changed: retry.count, dryRun: retry.dryRun, runIds: processed === null ? [] : [processed.runId], process: processed?.process ?? null });
        print(options.json ? JSON.stringify({ retry, process: processed }) : renderManualChanges('retry', retry) + (processed === null ? '' : `\n${renderProcessReport(processed)}`));
        if (processed?.aborted) process.stderr.write(`order-loader: ${escapeControl(processed.aborted)}\n`);
        return processed === null ? EXIT_OK : processed.exitCode;
      }
      case 'recover': {
        const report = await loader.recover({
          olderThanMs: options['older-than'],
          operator: options.operator ?? defaultOperator(),
          reason: options.reason ?? `recover: PROCESSING rows older than ${Math.round(options['older-than'] / 1000)} s that no transaction holds`,
          dryRun: options['dry-run'],
        });
        Object.assign(summary, { changed: report.changes.length, dryRun: report.dryRun });
        print(options.json ? JSON.stringify(report) : renderManualChanges('recover', report));
        return EXIT_OK;
      }
      case 'errors': {
        const rows = loader.errorRows({ loadIds: options['load-id'], errorCodes: options['error-code'], limit: options.limit });
        // stdout is the export from here on: a later failure must not append a second document
        printed = true;
        try {
          await (options.format === 'json' || options.json ? writeErrorsJson(rows, process.stdout) : writeErrorsCsv(rows, process.stdout));
        } catch (error) {
          // the reader went away (`errors | head -1`): nothing more is wanted, not a failure
          if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
        }
        return EXIT_OK;
      }
      case 'bench': {
        const report = await runBench(loader.engine, {
          rows: options.rows, chunkSizes: options['chunk-sizes'], workers: workerList, batchSize: options['batch-size'], logger, signal,
          onCase: options.json ? undefined : (c) => process.stderr.write(`bench: chunk ${c.chunkSize}, ${c.workers} worker(s): ${c.endToEndRowsPerSec} rows/s end to end\n`),
        });
        const points = report.cases.map((c) => ({ chunkSize: c.chunkSize, workers: c.workers, rowsPerSec: c.endToEndRowsPerSec }));
        // only complete cases are charted (a cut-short case is no measurement)
        writeFileSync(options.chart, renderChart(points, `order-loader bench: ${report.rows} rows on ${report.engine}${report.interrupted ? ' (interrupted: complete cases only)' : ''}`));
        print(options.json ? JSON.stringify({ ...report, chart: options.chart }) : `${renderBench(report)}\nchart: ${escapeControl(options.chart)}`);
        if (report.interrupted) process.stderr.write('order-loader: bench interrupted: the workspace was dropped\n');
        return report.interrupted ? EXIT_FAILED : EXIT_OK;
      }
      case 'runs': {
        const runs = await loader.runs(options.limit ?? 20);
        print(options.json ? JSON.stringify(runs) : renderRuns(runs));
        return EXIT_OK;
      }
    }
  } finally {
    await loader.close();
  }
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
  const controller = new AbortController();
  let signals = 0;
  const onSignal = (name: string) => {
    signals++;
    // --json promises one document on stdout, also when a second signal ends the command
    const exitNow = (message: string) => {
      process.stderr.write(`order-loader: ${message}\n`);
      if (wantsJson(process.argv.slice(2)) && !printed) print(JSON.stringify({ error: { kind: 'interrupted', message }, exitCode: EXIT_FAILED }));
    };
    if (signals > 2 || (signals === 2 && cancelRunning === undefined)) {
      exitNow(`${name} again: exiting now (the open transaction rolls back)`);
      process.exit(EXIT_FAILED);
    }
    if (signals === 2) {
      // Exiting alone is not enough: a backend blocked on a lock does not notice that our end
      // of the connection is gone, and keeps waiting with the chunk's row locks held.
      exitNow(`${name} again: cancelling the running statements and exiting now (the open transactions roll back)`);
      const cancelled = cancelRunning?.() ?? Promise.resolve();
      void Promise.race([cancelled, new Promise((resolve) => setTimeout(resolve, 3000))]).finally(() => process.exit(EXIT_FAILED));
      return;
    }
    process.stderr.write(`order-loader: ${name}: finishing the current chunk, then stopping${blockedChunkNote} (send again to exit at once)\n`);
    controller.abort();
  };
  // A reader that went away (`order-loader errors | head -1`) is not an error: without a
  // listener the EPIPE of a later write would end the process with a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));

  let code: number;
  let logger: Logger | undefined;
  let cmd: ParsedCommandLine | undefined;
  const started = performance.now();
  const summary: RunSummary = {};
  const argv = process.argv.slice(2);
  try {
    cmd = parseCommandLine(argv);
    if (cmd.help !== undefined) {
      print(usageFor(cmd.help.command));
      code = EXIT_OK;
    } else if (cmd.options.version) {
      print(version());
      code = EXIT_OK;
    } else if (cmd.command === null) {
      print(USAGE);
      code = EXIT_FAILED;
    } else {
      logger = cliLogger(cmd.options);
      code = await run({ ...cmd, command: cmd.command }, controller.signal, logger, summary);
    }
  } catch (error) {
    const user = error instanceof UserError || error instanceof RunAbortedError;
    const message = redactSecrets(error instanceof Error ? error.message : String(error));
    if (user) {
      process.stderr.write(`order-loader: ${escapeControl(message)}\n`);
    } else {
      // a bug, not a user error: the stack only on request, so an operator still sees one line
      const detail = error instanceof Error ? (process.env.ORDER_LOADER_DEBUG ? (error.stack ?? error.message) : error.message) : String(error);
      process.stderr.write(`order-loader: unexpected error: ${escapeControl(redactSecrets(detail))}\n`);
    }
    // --json promises one JSON document on stdout, also when the command fails
    if (wantsJson(argv) && !printed) {
      print(JSON.stringify({ error: { kind: errorKind(error), message }, exitCode: EXIT_FAILED }));
    }
    // The error that ends the command goes to the log too, so that a --log-file (or a cron
    // job's captured JSON) holds it; on a terminal the line above already says it.
    if (logger !== undefined && cmd !== undefined && !logsToTerminal(cmd.options)) {
      logger.error({ command: cmd.command, error: message, ...(user ? {} : { stack: error instanceof Error ? error.stack : undefined }) }, `${cmd.command ?? 'order-loader'} failed: ${message}`);
    }
    summary.error = message;
    code = EXIT_FAILED;
  }
  // How the run ended, at info: the last line of every run's log.
  logger?.info({ command: cmd?.command, exitCode: code, durationMs: Math.round(performance.now() - started), ...summary }, `${cmd?.command ?? 'order-loader'} ended with exit code ${code}`);
  process.exitCode = code;
}

await main();
