import type { RunCounts } from '../engine/types.js';
import { errorMessage } from '../errors.js';
import type { OrderFile } from '../input/order-file.js';
import type { LoadProfile } from '../input/profile/load-profile.js';
import type { ProcessCounts } from './process.js';
import type { RunRecordPort } from './ports.js';
import { startRun, type RecordedRun, type RunRecordOptions } from './run-record.js';
import type { FileStageResult } from './stage.js';
import type { StagingPlan } from './staging-plan.js';

/** One file's run of a `load` or `stage`: the events that say how its staging went. */
export class FileRun {
  constructor(readonly record: RecordedRun) {}

  get runId(): number {
    return this.record.runId;
  }

  /** What was asked: the file, the load its rows go to, how it is read (a rerun's staging plan reads this back). */
  invoked(
    file: OrderFile,
    sha256: string,
    loadId: number,
    readAs: { encoding: string; delimiter: string; restage?: boolean | undefined; profile?: LoadProfile | undefined },
  ): Promise<void> {
    return this.record.event('invoked', {
      file: file.path,
      size: file.size,
      sha256,
      loadId,
      header: file.header.names,
      encoding: readAs.encoding,
      delimiter: readAs.delimiter,
      restage: readAs.restage === true ? true : undefined,
      // the profile read by a rerun's staging plan (its hash) and by `errors` (its spec, to split a rejected line again)
      profile:
        readAs.profile === undefined ? undefined : { name: readAs.profile.name, sha256: readAs.profile.sha256, spec: readAs.profile.spec },
    });
  }

  /** Not read: staged before ('staged'), or stops at the same line as before ('staging_stopped'). */
  notRead(plan: Extract<StagingPlan, { action: 'skip' | 'stop' }>, loadId: number): Promise<void> {
    const stoppedAt = plan.action === 'stop' ? plan.stoppedAt : undefined;
    return this.record.event(plan.action === 'skip' ? 'staged' : 'staging_stopped', { skipped: true, loadId, stoppedAt });
  }

  resumed(loadId: number, from: { line: number; byte: number | null }): Promise<void> {
    return this.record.event('resumed', { loadId, line: from.line, byte: from.byte });
  }

  /** 'staged' only when the whole file is in (a rerun then skips it); otherwise 'staging_stopped' (a rerun resumes or stops). */
  staged(loadId: number, result: FileStageResult): Promise<void> {
    const complete = !result.interrupted && result.stoppedAt === null;
    return this.record.event(complete ? 'staged' : 'staging_stopped', {
      loadId,
      ...result.counts,
      stoppedAt: result.stoppedAt,
      interrupted: result.interrupted,
    });
  }
}

/**
 * The runs of one `load`/`stage` command, one per file (its run_id is the load_id of the rows it
 * stages), written through one object: started one by one, processed and ended together.
 */
export class LoadJournal {
  private readonly files: FileRun[] = [];

  constructor(
    private readonly engine: RunRecordPort,
    private readonly command: 'load' | 'stage',
    private readonly options: RunRecordOptions,
  ) {}

  async startFile(file: OrderFile, sha256: string): Promise<FileRun> {
    const run = new FileRun(await startRun(this.engine, this.command, { file, sha256 }, this.options));
    this.files.push(run);
    return run;
  }

  /**
   * A `load` that staged no file (none arrived, or none could be read) still processes the rows
   * of earlier loads that are due: its processing is recorded in a run without a file.
   */
  async startWithoutFile(): Promise<number> {
    const run = new FileRun(await startRun(this.engine, this.command, {}, this.options));
    this.files.push(run);
    await run.record.event('invoked', { files: 0 });
    return run.runId;
  }

  /** The run of the file staged last: the processing that follows staging is recorded as its. */
  get lastRunId(): number | undefined {
    return this.files[this.files.length - 1]?.runId;
  }

  /** Whether `runId` is one of this command's runs (the load of the rows a file of it staged). */
  started(runId: number | null): boolean {
    return runId !== null && this.files.some((f) => f.runId === runId);
  }

  /** The processing counts, on every file's run (processing took rows of all of them). */
  async processed(counts: ProcessCounts): Promise<void> {
    for (const run of this.records()) await run.event('processed', { ...counts });
  }

  /**
   * End every run: retried like any run statement. A run whose end cannot be recorded is logged,
   * not thrown, so that the other runs are still ended and the report still comes back.
   */
  async finish(status: 'COMPLETED' | 'FAILED', message: string | null, countsOf: (runId: number) => RunCounts): Promise<void> {
    for (const run of this.records()) {
      try {
        await run.finish(status, countsOf(run.runId), message);
      } catch (error) {
        this.options.logger.error({ runId: run.runId, error: errorMessage(error) }, 'could not record the end of the run');
      }
    }
  }

  /** End every run FAILED after an error: tried once each (see RecordedRun.fail). */
  async fail(message: string, countsOf: (runId: number) => RunCounts): Promise<void> {
    for (const run of this.records()) await run.fail(message, countsOf(run.runId));
  }

  private records(): RecordedRun[] {
    return this.files.map((f) => f.record);
  }
}
