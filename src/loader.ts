import type { Logger } from 'pino';
import { DEFAULT_DB, maskDbUrl, parseDbUrl } from './engine/db-url.js';
import { openEngine } from './engine/open.js';
import type { Engine, RunEventRecord, RunRecord, StatusReport } from './engine/types.js';
import { RunAbortedError, UserError } from './errors.js';
import { describeDbError } from './pipeline/db-error.js';
import { createLogger } from './log.js';
import { DEFAULT_LOAD_OPTIONS, runLoad, runProcess, type LoadOptions, type LoadReport, type ProcessReport, type ProcessRunOptions } from './pipeline/load.js';

export interface OpenLoaderOptions {
  /** Database: pglite:<dir>, pglite:memory, postgres://…, oracle://… (default: ORDER_LOADER_DB, then pglite:./.order-loader/db). */
  db?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  logger?: Logger | undefined;
  /** Concurrent workers the caller will use (sizes the connection pool). */
  workers?: number | undefined;
  /** Apply pending migrations on open (default true: a newcomer's first command just works). */
  migrate?: boolean | undefined;
}

/** The library's entry point: one database, the operations of the CLI as methods. */
export class OrderLoader {
  private constructor(
    readonly engine: Engine,
    readonly logger: Logger,
    /** The --db value with any password masked. */
    readonly dbLabel: string,
  ) {}

  static async open(options: OpenLoaderOptions = {}): Promise<OrderLoader> {
    const env = options.env ?? process.env;
    const db = options.db ?? (env.ORDER_LOADER_DB !== undefined && env.ORDER_LOADER_DB !== '' ? env.ORDER_LOADER_DB : DEFAULT_DB);
    const logger = options.logger ?? createLogger('info');
    const target = parseDbUrl(db, env);
    const label = maskDbUrl(db);
    let engine: Engine;
    try {
      engine = await openEngine(target, { connections: Math.max(1, options.workers ?? 1) });
    } catch (error) {
      throw new RunAbortedError(`cannot open database ${label}: ${describeDbError(error)}`, 'unreachable', { cause: error });
    }
    const loader = new OrderLoader(engine, logger, label);
    if (options.migrate !== false) {
      try {
        const applied = await engine.migrate();
        if (applied.length > 0) logger.info({ applied }, 'schema migrations applied');
      } catch (error) {
        await engine.close().catch(() => undefined);
        throw new RunAbortedError(`cannot prepare the schema on ${label}: ${describeDbError(error)}`, 'unreachable', { cause: error });
      }
    }
    return loader;
  }

  /** A loader over an engine the caller opened (and migrated); close() closes the engine. */
  static fromEngine(engine: Engine, logger: Logger, label: string = engine.kind): OrderLoader {
    return new OrderLoader(engine, logger, label);
  }

  /** Create or upgrade the schema; returns the migrations applied. */
  init(): Promise<string[]> {
    return this.engine.migrate();
  }

  load(files: string[], options: Partial<LoadOptions> = {}): Promise<LoadReport> {
    if (files.length === 0) throw new UserError('load: name at least one file');
    return runLoad(this.engine, 'load', files, this.loadOptions(options));
  }

  stage(files: string[], options: Partial<LoadOptions> = {}): Promise<LoadReport> {
    if (files.length === 0) throw new UserError('stage: name at least one file');
    return runLoad(this.engine, 'stage', files, this.loadOptions(options));
  }

  process(options: Partial<ProcessRunOptions> = {}): Promise<ProcessReport> {
    return runProcess(this.engine, this.loadOptions(options));
  }

  status(): Promise<StatusReport> {
    return this.engine.statusReport();
  }

  async runs(limit = 20): Promise<Array<RunRecord & { events: RunEventRecord[] }>> {
    const runs = await this.engine.listRuns(limit);
    const events = await this.engine.listRunEvents(runs.map((r) => r.runId));
    return runs.map((r) => ({ ...r, events: events.filter((e) => e.runId === r.runId) }));
  }

  close(): Promise<void> {
    return this.engine.close();
  }

  private loadOptions(options: Partial<LoadOptions>): LoadOptions {
    return { ...DEFAULT_LOAD_OPTIONS, logger: this.logger, ...stripUndefined(options) };
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
