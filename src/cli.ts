#!/usr/bin/env node
/**
 * The command line: parse arguments, validate them (zod), call the library, map the outcome to
 * an exit code. SIGINT/SIGTERM: the current chunk finishes or rolls back, then the run stops
 * (a second signal exits at once; the open transaction is rolled back by the database).
 */
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { parseCommandLine, USAGE, type ParsedCommandLine } from './cli/options.js';
import { renderLoadReport, renderProcessReport, renderRuns, renderStatus } from './cli/render.js';
import { RunAbortedError, UserError } from './errors.js';
import { OrderLoader } from './loader.js';
import { createLogger } from './log.js';
import { EXIT_FAILED, EXIT_OK } from './pipeline/outcome.js';

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
  const logger = createLogger(options['log-level'], options['log-file'] !== undefined ? pino.destination({ dest: options['log-file'], sync: true, mkdir: true }) : undefined);
  const loader = await OrderLoader.open({ db: options.db, logger, workers: options.workers });
  try {
    const common = {
      chunkSize: options['chunk-size'],
      batchSize: options['batch-size'],
      workers: options.workers,
      maxErrors: options['max-errors'],
      maxAttempts: options['max-attempts'],
      encoding: options.encoding,
      delimiter: options.delimiter,
      signal,
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
        print(options.json ? JSON.stringify(report) : renderLoadReport(report));
        if (report.aborted !== null) process.stderr.write(`order-loader: ${report.aborted}\n`);
        return report.exitCode;
      }
      case 'process': {
        const report = await loader.process(common);
        print(options.json ? JSON.stringify(report) : renderProcessReport(report));
        if (report.aborted !== null) process.stderr.write(`order-loader: ${report.aborted}\n`);
        return report.exitCode;
      }
      case 'status': {
        const report = await loader.status();
        print(options.json ? JSON.stringify(report) : renderStatus(report));
        return EXIT_OK;
      }
      case 'runs': {
        const runs = await loader.runs(options.limit);
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
      process.stderr.write(`order-loader: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
    code = EXIT_FAILED;
  }
  process.exitCode = code;
}

await main();
