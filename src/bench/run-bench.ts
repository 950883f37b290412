import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Engine } from '../engine/types.js';
import { processBacklog } from '../pipeline/process.js';
import { DEFAULT_LOAD_OPTIONS, runLoad } from '../pipeline/load.js';
import { generateOrderFile, writeLines, type GenerateResult } from './synthetic-orders.js';
import { shapedLines, type FileShape } from './profile-shape.js';
import { errorMessage, UserError } from '../errors.js';
import { openOrderFile } from '../input/order-file.js';
import type { LoadProfile } from '../input/profile/load-profile.js';
import { dryRunFile } from '../pipeline/dry-run-file.js';
import { startRecordedRun, type RecordedRun } from '../pipeline/run-record.js';

export interface BenchOptions {
  rows: number;
  chunkSizes: number[];
  workers: number[];
  batchSize: number;
  logger: Logger;
  signal?: AbortSignal | undefined;
  /** Called after each case, for live output. */
  onCase?: ((result: BenchCase) => void) | undefined;
  /** `--profile`: the file is written in the profile's shape (profile-shape.ts) and staged through it. */
  profile?: { profile: LoadProfile; shape: FileShape } | undefined;
}

export interface BenchCase {
  chunkSize: number;
  workers: number;
  rows: number;
  stageRowsPerSec: number;
  processRowsPerSec: number;
  endToEndRowsPerSec: number;
  /** Chunk transaction time (claim → commit), milliseconds. */
  commitP50Ms: number;
  commitP95Ms: number;
  /** Peak resident set size of this process so far, MB. */
  peakRssMb: number;
  done: number;
  error: number;
  /** Lines rejected while staging (none expected: every generated line is readable). */
  rejected: number;
}

export interface BenchReport {
  engine: string;
  rows: number;
  cases: BenchCase[];
  /** Worker counts skipped because the engine has one connection (PGlite). */
  skipped: string[];
  /** Stopped by a signal; `cases` holds only the cases that ran to their end. */
  interrupted: boolean;
  /** The case that was running when the signal came (cut short: not in `cases`, not charted). */
  interruptedCase: { chunkSize: number; workers: number } | null;
  /** The generated file: its rows with a missing amount (VALIDATE errors) and with an amount orders.amount cannot hold (MERGE errors). */
  generated: { missing: number; overflow: number };
  /** `--profile`: the profile the file was written in and read through, and what its shape changed in the data. */
  profile: { name: string; sha256: string; notes: string[] } | null;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const perSec = (rows: number, ms: number) => (ms > 0 ? Math.round((rows * 1000) / ms) : 0);

/** What the bench writes about its own run: its cases and how it ended. */
type BenchRecord = Pick<RecordedRun, 'event' | 'complete' | 'fail'>;

/**
 * The bench's own run: a run in the loader's history where the engine keeps it there
 * (`benchRunInLoaderHistory`), else log lines only (Oracle: no statement on the loader's tables).
 */
async function benchRecord(engine: Engine, options: BenchOptions): Promise<BenchRecord> {
  const invoked = {
    rows: options.rows,
    chunkSizes: options.chunkSizes,
    workers: options.workers,
    batchSize: options.batchSize,
    ...(options.profile === undefined ? {} : { profile: { name: options.profile.profile.name, sha256: options.profile.profile.sha256 } }),
  };
  if (engine.benchRunInLoaderHistory) return startRecordedRun(engine, 'bench', { logger: options.logger }, invoked);
  const log = options.logger.child({ bench: engine.kind });
  log.info(invoked, "bench started (its run is not recorded in the loader's history on this engine)");
  return {
    event(name, detail) {
      log.info({ event: name, detail }, `bench ${name}`);
      return Promise.resolve();
    },
    complete(counts) {
      log.info({ counts }, 'bench completed');
      return Promise.resolve();
    },
    fail(reason, counts) {
      log.warn({ counts, reason: errorMessage(reason) }, 'bench failed');
      return Promise.resolve();
    },
  };
}

const BENCH_FILE = /^order-loader-bench-(\d+)-[0-9a-f]{8}(?:\.csv)?$/;

/** Is process `pid` gone (this host)? A pid in use, or one we may not signal, counts as alive. */
function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * The generated files of benches that died (kill -9) in `dir`: removed, one name each for the
 * log. A file is named after its bench's pid; one whose pid is in use is left (a reused pid only
 * delays its removal).
 */
async function removeDeadBenchFiles(dir: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(dir)) {
    const pid = Number(BENCH_FILE.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isSafeInteger(pid) || pid === process.pid || !processGone(pid)) continue;
    await rm(join(dir, name), { force: true, recursive: true });
    removed.push(name);
  }
  return removed;
}

/**
 * `bench`: synthetic orders (1% missing amounts, 0.1% database-level overflows) staged and
 * processed once per chunk size × worker count, each case in a fresh workspace of its own (a
 * schema on PostgreSQL, prefixed tables on Oracle) that is dropped afterwards, also when
 * interrupted. Real data is never touched: the loader's own tables are not in the workspace's
 * scope.
 */
export async function runBench(engine: Engine, options: BenchOptions): Promise<BenchReport> {
  // a profile that takes values from the file's name (file_pattern) reads a file of the name its
  // shape gives, in a folder of the bench's own (removed like the file)
  const own = join(tmpdir(), `order-loader-bench-${process.pid}-${randomBytes(4).toString('hex')}`);
  const fileName = options.profile?.shape.fileName ?? null;
  const file = fileName === null ? `${own}.csv` : join(own, fileName);
  const cases: BenchCase[] = [];
  const skipped: string[] = [];
  let interrupted = false;
  let interruptedCase: { chunkSize: number; workers: number } | null = null;
  let generatedCounts: BenchReport['generated'] | undefined;
  // The bench's own run is recorded outside every workspace, in the loader's run history where
  // the engine keeps it there (the runs of its cases live and go with their workspace).
  const run = await benchRecord(engine, options);
  try {
    for (const leftover of await removeDeadBenchFiles(tmpdir()))
      options.logger.warn({ file: leftover }, 'bench: removed the generated file of a run that is gone');
    if (fileName !== null) await mkdir(own);
    const generated = await generateBenchFile(file, options);
    generatedCounts = { missing: generated.missing, overflow: generated.overflow };
    for (const chunkSize of options.chunkSizes) {
      for (const workers of options.workers) {
        if (options.signal?.aborted === true) {
          interrupted = true;
          break;
        }
        if (workers > 1 && !engine.capabilities.concurrentConnections) {
          skipped.push(`${workers} workers at chunk size ${chunkSize}: ${engine.kind} has one connection`);
          continue;
        }
        const workspace = `order_loader_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
        const { dropped } = await engine.createWorkspace(workspace);
        for (const leftover of dropped) options.logger.warn({ workspace: leftover }, 'bench: dropped the workspace of a run that is gone');
        let result: BenchCase | null = null;
        try {
          const started = performance.now();
          const staged = await runLoad(engine, 'stage', [file], {
            ...DEFAULT_LOAD_OPTIONS,
            batchSize: options.batchSize,
            logger: options.logger,
            signal: options.signal,
            profile: options.profile?.profile,
          });
          const stageMs = performance.now() - started;
          const processStarted = performance.now();
          const processed = await processBacklog(engine, {
            runId: staged.files[0]?.runId ?? 0,
            chunkSize,
            workers,
            maxAttempts: 5,
            rowRetryBaseMs: 30_000,
            rowRetryMaxMs: 1_800_000,
            retry: DEFAULT_LOAD_OPTIONS.retry,
            logger: options.logger,
            signal: options.signal,
          });
          const processMs = performance.now() - processStarted;
          // A case cut short measured part of the work against part of the time: it is no result.
          if (staged.aborted !== null || processed.stopped !== null) {
            interrupted = true;
            interruptedCase = { chunkSize, workers };
          } else {
            result = {
              chunkSize,
              workers,
              rows: options.rows,
              stageRowsPerSec: perSec(options.rows, stageMs),
              processRowsPerSec: perSec(processed.counts.claimed, processMs),
              endToEndRowsPerSec: perSec(options.rows, stageMs + processMs),
              commitP50Ms: Math.round(percentile(processed.chunkMillis, 50) * 10) / 10,
              commitP95Ms: Math.round(percentile(processed.chunkMillis, 95) * 10) / 10,
              peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
              done: processed.counts.done,
              error: processed.counts.error,
              rejected: staged.files[0]?.counts.rejected ?? 0,
            };
          }
        } finally {
          await engine.dropWorkspace(workspace);
        }
        // recorded once the engine is back on the loader's tables
        if (result !== null) {
          cases.push(result);
          await run.event('case', { ...result });
          options.onCase?.(result);
        }
        if (interrupted) break;
      }
      if (interrupted) break;
    }
  } catch (error) {
    await run.fail(error, { cases: cases.length });
    throw error;
  } finally {
    await rm(fileName === null ? file : own, { force: true, recursive: true });
  }
  if (interrupted) {
    await run.fail(
      interruptedCase === null
        ? 'interrupted between cases'
        : `interrupted during chunk size ${interruptedCase.chunkSize}, ${interruptedCase.workers} worker(s): that case is not reported`,
      { cases: cases.length },
    );
  } else {
    await run.complete({ cases: cases.length });
  }
  const profile = options.profile === undefined ? null : options.profile;
  return {
    engine: engine.kind,
    rows: options.rows,
    cases,
    skipped,
    interrupted,
    interruptedCase,
    generated: generatedCounts,
    profile: profile === null ? null : { name: profile.profile.name, sha256: profile.profile.sha256, notes: profile.shape.notes },
  };
}

/**
 * The bench's file: the built-in format, or the profile's shape, then read back through the
 * profile (a dry run: the reader and mapping of a load) so that a file the profile does not read
 * as written is refused before any case, with its first rejected line.
 */
async function generateBenchFile(file: string, options: BenchOptions): Promise<GenerateResult> {
  const shaped = options.profile;
  if (shaped === undefined) return generateOrderFile(file, { rows: options.rows, seed: 7 });
  const result = await writeLines(file, shapedLines(shaped.shape, { rows: options.rows, seed: 7 }), shaped.shape.encode);
  const check = await dryRunFile(await openOrderFile(file, { encoding: 'utf-8', delimiter: ',', profile: shaped.profile }));
  const c = check.counts;
  if (check.stoppedAt !== null || c.rejected > 0 || c.read !== options.rows) {
    const first = check.samples.find((s) => !s.code.startsWith('INVALID_'));
    const detail =
      first === undefined
        ? `${c.read} of ${options.rows} lines read as data lines`
        : `line ${first.lineNo}: ${first.message.startsWith(`${first.code}: `) ? '' : `${first.code}: `}${first.message}`;
    throw new UserError(
      `bench --profile ${shaped.profile.name}: the file written in the profile's shape does not read back through it (${detail})`,
    );
  }
  return result;
}
