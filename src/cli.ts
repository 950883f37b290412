#!/usr/bin/env node
/**
 * The command line: parse arguments, validate them (zod), call the library, map the outcome to
 * an exit code. SIGINT/SIGTERM: the current chunk finishes or rolls back, then the run stops
 * (a second signal exits at once; the open transaction is rolled back by the database).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { pino } from 'pino';
import { defaultLockTimeoutMs, parseCommandLine, USAGE, type ParsedCommandLine } from './cli/options.js';
import { renderBench, renderDryRun, renderLoadReport, renderManualChanges, renderProcessReport, renderRuns, renderStatus } from './cli/render.js';
import { createProgress } from './cli/progress.js';
import { runBench } from './bench/run-bench.js';
import { renderChart } from './bench/chart.js';
import { errorsToCsv } from './cli/errors-csv.js';
import { defaultOperator, parseCorrections } from './pipeline/operations.js';
import { RunAbortedError, UserError } from './errors.js';
import { OrderLoader } from './loader.js';
import { DEFAULT_LOAD_OPTIONS } from './pipeline/load.js';
import { createLogger } from './log.js';
import { EXIT_FAILED, EXIT_OK, EXIT_ROWS_REJECTED } from './pipeline/outcome.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

async function run(cmd: ParsedCommandLine, signal: AbortSignal): Promise<number> {
  const { command, options } = cmd;
  if (options.version) {
    print(version());
    return EXIT_OK;
  }
  if (options.help || command === null) {
    print(USAGE);
    return command === null && !options.help ? EXIT_FAILED : EXIT_OK;
  }
  // On a terminal a person reads the progress line and the summary: JSON info lines would bury
  // them, so the default there is warn. In a pipe, a file or cron the default is info.
  const logFile = options['log-file'];
  const level = options['log-level'] ?? (logFile === undefined && process.stderr.isTTY === true ? 'warn' : 'info');
  const logger = createLogger(level, logFile !== undefined ? pino.destination({ dest: logFile, sync: true, mkdir: true }) : undefined);
  // A user error in the files is reported before the database is even opened.
  for (const file of cmd.files) {
    if (!existsSync(file)) throw new UserError(`${file}: no such file`);
  }
  if (options['dry-run'] && (command === 'load' || command === 'stage')) {
    // --dry-run writes nothing and needs no database
    const results = await OrderLoader.dryRunFiles(cmd.files, { encoding: options.encoding, delimiter: options.delimiter, batchSize: options['batch-size'] });
    print(options.json ? JSON.stringify({ dryRun: true, files: results }) : renderDryRun(results));
    return results.some((r) => r.stoppedAt !== null) ? EXIT_FAILED : results.some((r) => r.counts.rejected > 0) ? EXIT_ROWS_REJECTED : EXIT_OK;
  }
  // 2 workers by default: measured best on 2 cores with staging alongside (bench/RESULTS.md)
  const workerList = options.workers ?? (command === 'bench' ? [1, 2, 4] : [DEFAULT_LOAD_OPTIONS.workers]);
  const workers = Math.max(...workerList);
  const loader = await OrderLoader.open({
    db: options.db, logger, workers, signal, command,
    lockTimeoutMs: options['lock-timeout'] ?? defaultLockTimeoutMs(command),
    // a person at a terminal (logs at warn) is told why nothing happens yet
    onLockWait: process.stderr.isTTY === true && !logger.isLevelEnabled('info') ? (message) => process.stderr.write(`order-loader: ${message}\n`) : undefined,
  });
  const progress = options.json ? createProgress({ isTTY: false } as NodeJS.WriteStream) : createProgress();
  try {
    const common = {
      chunkSize: options['chunk-size'],
      batchSize: options['batch-size'],
      workers,
      maxErrors: options['max-errors'],
      maxAttempts: options['max-attempts'],
      encoding: options.encoding,
      delimiter: options.delimiter,
      overlap: options.overlap,
      signal,
      onStageProgress: (file: string, bytes: number, size: number, lines: number) => progress.staging(file, bytes, size, lines),
      onProcessStart: (total: number) => progress.processingStart(total),
      onProcessProgress: (counts: { claimed: number }) => progress.processing(counts.claimed),
    };
    const selector = {
      stageIds: options['stage-id'], sourceKeys: options['source-key'], errorCodes: options['error-code'], loadIds: options['load-id'],
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
        print(options.json ? JSON.stringify(report) : renderLoadReport(report));
        if (report.aborted !== null) process.stderr.write(`order-loader: ${report.aborted}\n`);
        return report.exitCode;
      }
      case 'process': {
        const report = await loader.process(common);
        progress.clear();
        print(options.json ? JSON.stringify(report) : renderProcessReport(report));
        if (report.aborted !== null) process.stderr.write(`order-loader: ${report.aborted}\n`);
        return report.exitCode;
      }
      case 'status': {
        const report = await loader.status();
        print(options.json ? JSON.stringify(report) : renderStatus(report));
        return EXIT_OK;
      }
      case 'retry': {
        const corrections = parseCorrections(options.set);
        const { retry, process: processed } = await loader.retry(
          { selector, all: options['all-errors'], corrections, reason: options.reason ?? '', operator: options.operator ?? defaultOperator(), dryRun: options['dry-run'] },
          { ...common, process: !options['no-process'] },
        );
        progress.clear();
        print(options.json ? JSON.stringify({ retry, process: processed }) : renderManualChanges('retry', retry) + (processed === null ? '' : `\n${renderProcessReport(processed)}`));
        if (processed?.aborted) process.stderr.write(`order-loader: ${processed.aborted}\n`);
        return processed === null ? EXIT_OK : processed.exitCode;
      }
      case 'recover': {
        const report = await loader.recover({
          olderThanMs: options['older-than'],
          operator: options.operator ?? defaultOperator(),
          reason: options.reason ?? `recover: PROCESSING rows older than ${Math.round(options['older-than'] / 1000)} s that no transaction holds`,
          dryRun: options['dry-run'],
        });
        print(options.json ? JSON.stringify(report) : renderManualChanges('recover', report));
        return EXIT_OK;
      }
      case 'errors': {
        const rows = await loader.errors({ loadIds: options['load-id'], errorCodes: options['error-code'], limit: options.limit });
        process.stdout.write(options.format === 'json' || options.json ? `${JSON.stringify(rows)}\n` : errorsToCsv(rows));
        return EXIT_OK;
      }
      case 'bench': {
        const report = await runBench(loader.engine, {
          rows: options.rows, chunkSizes: options['chunk-sizes'], workers: workerList, batchSize: options['batch-size'], logger, signal,
          onCase: options.json ? undefined : (c) => process.stderr.write(`bench: chunk ${c.chunkSize}, ${c.workers} worker(s): ${c.endToEndRowsPerSec} rows/s end to end\n`),
        });
        const points = report.cases.map((c) => ({ chunkSize: c.chunkSize, workers: c.workers, rowsPerSec: c.endToEndRowsPerSec }));
        writeFileSync(options.chart, renderChart(points, `order-loader bench: ${report.rows} rows on ${report.engine}`));
        print(options.json ? JSON.stringify({ ...report, chart: options.chart }) : `${renderBench(report)}\nchart: ${options.chart}`);
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

async function main(): Promise<void> {
  const controller = new AbortController();
  let signals = 0;
  const onSignal = (name: string) => {
    signals++;
    if (signals > 1) {
      process.stderr.write(`order-loader: ${name} again: exiting now (the open transaction rolls back)\n`);
      process.exit(EXIT_FAILED);
    }
    process.stderr.write(`order-loader: ${name}: finishing the current chunk, then stopping (send again to exit at once)\n`);
    controller.abort();
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));

  let code: number;
  try {
    const cmd = parseCommandLine(process.argv.slice(2));
    code = await run(cmd, controller.signal);
  } catch (error) {
    if (error instanceof UserError || error instanceof RunAbortedError) {
      process.stderr.write(`order-loader: ${error.message}\n`);
    } else {
      // a bug, not a user error: the stack only on request, so an operator still sees one line
      const detail = error instanceof Error ? (process.env.ORDER_LOADER_DEBUG ? (error.stack ?? error.message) : error.message) : String(error);
      process.stderr.write(`order-loader: unexpected error: ${detail}\n`);
    }
    code = EXIT_FAILED;
  }
  process.exitCode = code;
}

await main();
