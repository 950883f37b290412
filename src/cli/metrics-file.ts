/**
 * --metrics-file: at the end of each command, the run in the Prometheus text exposition format
 * (version 0.0.4), as node_exporter's textfile collector reads it. Written whole to a temporary
 * file in the same folder, then renamed over the old one, so that the collector never reads half
 * a file (it reads only `*.prom`: the temporary name does not end so).
 *
 * Our own writer, not prom-client: that library keeps a process-wide registry of collectors for
 * a server scraped many times; a one-shot command writes a dozen gauges once. What the format
 * asks of a writer is small and written out here: HELP and TYPE lines, label values escaped
 * (backslash, double quote, line feed), HELP text escaped (backslash, line feed).
 *
 * "Last success" must outlive the run that rewrites the file: it is read back from the previous
 * file (the database is not asked: it may be the very thing that is down, and its load_run table
 * holds every host's and every job's runs, not this job's). One file per scheduled job.
 */
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { patternRegExp } from '../input/inputs.js';
import type { DatabaseState, LoadReport, ProcessReport } from '../pipeline/load.js';
import { EXIT_FAILED } from '../pipeline/outcome.js';
import { escapeControl } from './escape.js';
import { perSecond, phaseWork } from './phase-work.js';

export interface RunMetrics {
  command: string;
  exitCode: number;
  durationMs: number;
  finishedAt: Date;
  /** The command's report, when it got that far (load, stage, process). */
  report?: LoadReport | ProcessReport | undefined;
  /** The database's state once the command's work was committed, when it got that far (load, stage, process). */
  state?: DatabaseState | undefined;
}

/** Every metric family written, by name: the alert rules under examples/ may use only these. */
export const METRIC_FAMILIES = {
  order_loader_last_run_exit_code:
    'Exit code of the last run: 0 every row DONE, 2 finished with ERROR or rejected rows or a failed file, 1 could not finish.',
  order_loader_last_run_timestamp_seconds: 'When the last run ended (Unix time).',
  order_loader_last_success_timestamp_seconds:
    'When a run last finished (exit code 0 or 2; Unix time), kept from the previous file across runs that could not finish.',
  order_loader_last_run_duration_seconds: 'How long the last run took.',
  order_loader_last_run_rows: "The last run's rows by final status (load and stage: the rows of its files; process: the rows it claimed).",
  order_loader_last_run_failed_rows:
    "The last run's rows that failed, by phase: PARSE lines rejected while staging, VALIDATE and MERGE rows ended ERROR.",
  order_loader_last_run_files:
    "The last run's files: loaded, skipped (staged completely before), stopped (unreadable past a line), archived, failed, empty (zero bytes), left (for the next run: in their quiet period, without their marker, or changed while listed), ignored (inbox entries that are not regular files: FIFO, dangling symlink, directory named like a file), unmatched (not read: no load profile of --profiles matches the name).",
  order_loader_last_run_profile_files:
    "With --profiles: the last run's files by the load profile that matched their name (every profile of the folder, 0 when none came): loaded, skipped, stopped, archived, failed, empty, as order_loader_last_run_files.",
  order_loader_last_run_profile_rows:
    "With --profiles: the last run's rows by the load profile their file was read with, by final status (DONE, ERROR, RETRY_WAIT, READY).",
  order_loader_last_run_profile_rejected_lines:
    "With --profiles: the last run's lines rejected while staging (phase PARSE) by the load profile their file was read with.",
  order_loader_last_run_rows_per_second:
    "The last run's speed by phase: stage lines read per second of staging, process rows claimed by processing per second of processing (rows settled while staging are staging's).",
  order_loader_rows:
    "The database's rows of order_stage by status now (read by the last run once its work was committed), whatever run made them: what alerts read, not the last run's own rows.",
  order_loader_last_run_stranded_held_rows:
    "load and stage: rows still HELD after the last run that it did not release: of earlier loads of its file names (a load interrupted while staging, its file since read as another: changed content or profile; load the earlier file again as it was), and of its own loads that a killed run's set of files holds, which it did not stage whole (load the whole set again); order-loader recover --older-than gives them up.",
  order_loader_last_run_control_totals:
    "load and stage: each file of the last run with control totals (a profile's control:), what its trailer, header or control file states (side=stated) and what was read before per-row rejections (side=read), by figure (count, sum); status is the check's outcome: ok, mismatch (its rows HELD until order-loader accept), refused (not staged).",
  order_loader_oldest_waiting_row_age_seconds:
    'How long the oldest row still to be loaded (READY, RETRY_WAIT after a transient failure, or HELD until the staging of its run ends) has waited, since the run that staged it started; 0 when none waits.',
  order_loader_state_timestamp_seconds:
    "When the last run read the database's state (Unix time); absent, with the state, when it could not read it.",
} as const;

export type MetricName = keyof typeof METRIC_FAMILIES;

const STATUSES = ['DONE', 'ERROR', 'RETRY_WAIT', 'READY'] as const;
const STATE_STATUSES = ['DONE', 'ERROR', 'RETRY_WAIT', 'READY', 'PROCESSING', 'HELD'] as const;
const PHASES = ['PARSE', 'VALIDATE', 'MERGE'] as const;
const FILE_OUTCOMES = ['loaded', 'skipped', 'stopped', 'archived', 'failed', 'empty', 'left', 'ignored', 'unmatched'] as const;
/** The outcomes counted per profile (--profiles): those of files a profile matched. */
const PROFILE_FILE_OUTCOMES = ['loaded', 'skipped', 'stopped', 'archived', 'failed', 'empty'] as const;

/** The metric families written only for a run with a file whose profile has control totals (`control:`). */
export const CONTROL_ONLY: readonly MetricName[] = ['order_loader_last_run_control_totals'];

/** The metric families written only for a run that routed its files by name (--profiles). */
export const ROUTED_ONLY: readonly MetricName[] = [
  'order_loader_last_run_profile_files',
  'order_loader_last_run_profile_rows',
  'order_loader_last_run_profile_rejected_lines',
];

interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** The file's text for this run; `previous`, the file as it was (for the last successes). */
export function renderMetrics(run: RunMetrics, previous: string | null): string {
  // a run that read its files through one load profile (--profile): its name labels the run's
  // numbers; a run that picked each file's by its name (--profiles) has them by profile instead
  const loadReport = run.report !== undefined && run.report.command !== 'process' ? run.report : undefined;
  const routed = loadReport?.profiles !== undefined;
  const profile = loadReport === undefined || routed ? undefined : loadReport.files.find((f) => f.profile)?.profile;
  const command: Record<string, string> =
    profile === undefined ? { command: run.command } : { command: run.command, profile: profile.name };
  const families = new Map<MetricName, Sample[]>();
  const set = (name: MetricName, samples: Sample[]) => families.set(name, samples);
  const one = (value: number) => [{ labels: command, value }];
  const nowSeconds = run.finishedAt.getTime() / 1000;

  set('order_loader_last_run_exit_code', one(run.exitCode));
  set('order_loader_last_run_timestamp_seconds', one(nowSeconds));
  const successes = previous === null ? new Map<string, number>() : lastSuccesses(previous);
  if (run.exitCode !== EXIT_FAILED) successes.set(run.command, nowSeconds);
  set(
    'order_loader_last_success_timestamp_seconds',
    [...successes].sort(([a], [b]) => a.localeCompare(b)).map(([c, value]) => ({ labels: { command: c }, value })),
  );
  set('order_loader_last_run_duration_seconds', one(run.durationMs / 1000));

  const counts = reportCounts(run.report);
  set(
    'order_loader_last_run_rows',
    STATUSES.map((status) => ({ labels: { ...command, status }, value: counts.rows[status] })),
  );
  set(
    'order_loader_last_run_failed_rows',
    PHASES.map((phase) => ({ labels: { ...command, phase }, value: counts.failed[phase] })),
  );
  set(
    'order_loader_last_run_files',
    FILE_OUTCOMES.map((outcome) => ({ labels: { ...command, outcome }, value: counts.files[outcome] })),
  );
  set('order_loader_last_run_rows_per_second', [
    { labels: { ...command, phase: 'stage' }, value: counts.rate.stage },
    { labels: { ...command, phase: 'process' }, value: counts.rate.process },
  ]);
  if (loadReport !== undefined)
    set('order_loader_last_run_stranded_held_rows', one((loadReport.strandedHolds ?? []).reduce((n, h) => n + h.rows, 0)));
  if (loadReport !== undefined) set('order_loader_last_run_control_totals', controlSamples(loadReport, command));
  if (loadReport !== undefined && routed) {
    const byProfile = profileCounts(loadReport);
    set(
      'order_loader_last_run_profile_files',
      [...byProfile].flatMap(([name, c]) =>
        PROFILE_FILE_OUTCOMES.map((outcome) => ({ labels: { ...command, profile: name, outcome }, value: c.files[outcome] })),
      ),
    );
    set(
      'order_loader_last_run_profile_rows',
      [...byProfile].flatMap(([name, c]) =>
        STATUSES.map((status) => ({ labels: { ...command, profile: name, status }, value: c.rows[status] })),
      ),
    );
    set(
      'order_loader_last_run_profile_rejected_lines',
      [...byProfile].map(([name, c]) => ({ labels: { ...command, profile: name }, value: c.rejected })),
    );
  }

  // the state (labelled by command as the rest: one file per job, read together by one collector)
  const state = run.state;
  if (state !== undefined) {
    set(
      'order_loader_rows',
      STATE_STATUSES.map((status) => ({ labels: { ...command, status }, value: state.rows[status] ?? 0 })),
    );
    const since = state.oldestWaitingSince;
    set(
      'order_loader_oldest_waiting_row_age_seconds',
      one(since === null ? 0 : Math.max(0, (state.readAt.getTime() - since.getTime()) / 1000)),
    );
    set('order_loader_state_timestamp_seconds', one(state.readAt.getTime() / 1000));
  }

  const lines: string[] = [];
  for (const [name, samples] of families) {
    if (samples.length === 0) continue;
    lines.push(`# HELP ${name} ${escapeHelp(METRIC_FAMILIES[name])}`, `# TYPE ${name} gauge`);
    for (const s of samples) lines.push(`${name}{${labelText(s.labels)}} ${formatValue(s.value)}`);
  }
  return `${lines.join('\n')}\n`;
}

interface Counts {
  rows: Record<(typeof STATUSES)[number], number>;
  failed: Record<(typeof PHASES)[number], number>;
  files: Record<(typeof FILE_OUTCOMES)[number], number>;
  rate: { stage: number; process: number };
}

/** The numbers of a report; all 0 for a run that ended before it had one. */
function reportCounts(report: LoadReport | ProcessReport | undefined): Counts {
  const counts: Counts = {
    rows: { DONE: 0, ERROR: 0, RETRY_WAIT: 0, READY: 0 },
    failed: { PARSE: 0, VALIDATE: 0, MERGE: 0 },
    files: { loaded: 0, skipped: 0, stopped: 0, archived: 0, failed: 0, empty: 0, left: 0, ignored: 0, unmatched: 0 },
    rate: { stage: 0, process: 0 },
  };
  if (report === undefined) return counts;
  const p = report.process;
  if (p !== null) {
    counts.failed.VALIDATE = p.validateErrors;
    // mergeErrors counts the rows the database refused, RETRY_WAIT included; those are not ERROR
    counts.failed.MERGE = p.mergeErrors - p.retryWait;
  }
  if (report.command === 'process') {
    counts.rows = { DONE: report.process.done, ERROR: report.process.error, RETRY_WAIT: report.process.retryWait, READY: 0 };
    counts.rate.process = perSecond(report.process.claimed, report.elapsedMs);
    return counts;
  }
  let read = 0;
  for (const f of report.files) {
    read += f.counts.read;
    counts.failed.PARSE += f.counts.rejected;
    for (const status of STATUSES) counts.rows[status] += f.tally[status] ?? 0;
    if (f.skipped !== null) counts.files.skipped++;
    else if (f.stoppedAt !== null) counts.files.stopped++;
    else counts.files.loaded++;
  }
  // where the files went: --archive-dir and --failed-dir (src/pipeline/archive.ts)
  counts.files.archived = report.archived.length;
  const unmatched = report.unmatched ?? [];
  counts.files.failed = report.unreadable.filter((u) => u.movedTo !== null).length + unmatched.filter((u) => u.movedTo !== null).length;
  counts.files.unmatched = unmatched.length;
  counts.files.empty = report.empty.length;
  counts.files.left = report.notRead.length;
  counts.files.ignored = report.ignored.length;
  counts.rate.stage = perSecond(read, report.stageMs);
  // rows settled while staging were staging's work (phase-work.ts)
  counts.rate.process = p === null ? 0 : perSecond(phaseWork(report).processed, report.processMs);
  return counts;
}

interface ProfileCounts {
  files: Record<(typeof PROFILE_FILE_OUTCOMES)[number], number>;
  rows: Record<(typeof STATUSES)[number], number>;
  rejected: number;
}

/**
 * A routed run's numbers per profile of its folder, in the folder's order (every profile, so
 * that a partner whose file did not come shows 0 loaded). A file's profile is the one whose
 * match: takes its name: one at most, as a name two match refuses the run.
 */
function profileCounts(report: LoadReport): Map<string, ProfileCounts> {
  const out = new Map<string, ProfileCounts>();
  const patterns: Array<[RegExp, ProfileCounts]> = [];
  for (const p of report.profiles ?? []) {
    const c: ProfileCounts = {
      files: { loaded: 0, skipped: 0, stopped: 0, archived: 0, failed: 0, empty: 0 },
      rows: { DONE: 0, ERROR: 0, RETRY_WAIT: 0, READY: 0 },
      rejected: 0,
    };
    out.set(p.name, c);
    patterns.push([patternRegExp(p.match), c]);
  }
  const of = (file: string) => patterns.find(([re]) => re.test(basename(file)))?.[1];
  for (const f of report.files) {
    const c = of(f.file);
    if (c === undefined) continue;
    if (f.skipped !== null) c.files.skipped++;
    else if (f.stoppedAt !== null) c.files.stopped++;
    else c.files.loaded++;
    for (const status of STATUSES) c.rows[status] += f.tally[status] ?? 0;
    c.rejected += f.counts.rejected;
  }
  for (const a of report.archived) {
    const c = of(a.file);
    if (c !== undefined) c.files.archived++;
  }
  for (const u of report.unreadable) {
    const c = u.movedTo === null ? undefined : of(u.file);
    if (c !== undefined) c.files.failed++;
  }
  for (const m of report.empty) {
    const c = of(m.file);
    if (c !== undefined) c.files.empty++;
  }
  return out;
}

const SUCCESS_LINE = /^order_loader_last_success_timestamp_seconds\{command="((?:[^"\\]|\\.)*)"\} (\S+)/;

/** The last successes of each command in a file this module wrote before. */
function lastSuccesses(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = SUCCESS_LINE.exec(line);
    const value = Number(m?.[2]);
    if (m?.[1] !== undefined && Number.isFinite(value)) found.set(unescapeLabel(m[1]), value);
  }
  return found;
}

function labelText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
    .join(',');
}

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const unescapeLabel = (v: string) => v.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
const escapeHelp = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

function formatValue(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return String(Math.round(value * 1000) / 1000);
}

/** Write the file atomically: a temporary file beside it, renamed over it. */
export function writeMetricsFile(path: string, run: RunMetrics): void {
  let previous: string | null = null;
  try {
    previous = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(temporary, renderMetrics(run, previous));
    renameSync(temporary, path);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // not written at all
    }
    throw error;
  }
}

/**
 * The end of a command with --metrics-file: write it; a failure to write does not change the
 * command's exit code (its work is done): it is said on stderr and in the log.
 */
export function writeRunMetrics(
  path: string | undefined,
  run: RunMetrics,
  stderr: Pick<NodeJS.WritableStream, 'write'>,
  logger: Logger | undefined,
): void {
  if (path === undefined) return;
  try {
    writeMetricsFile(path, run);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message = `cannot write --metrics-file ${path} (${typeof code === 'string' ? code : String(error)})`;
    stderr.write(`order-loader: ${escapeControl(message)}\n`);
    logger?.error({ metricsFile: path }, message);
  }
}

/** Each checked file's stated and read figures (a figure stated as no number is left out). */
function controlSamples(report: LoadReport, command: Record<string, string>): Sample[] {
  const checked = [
    ...report.files.flatMap((f) => (f.control === undefined ? [] : [f.control])),
    ...(report.controlRefused ?? []).map((r) => r.control),
  ];
  const samples: Sample[] = [];
  for (const c of checked) {
    const labels = { ...command, file: basename(c.file), status: c.status };
    const figures: Array<[string, 'stated' | 'read', string | number | undefined]> = [
      ['count', 'stated', c.claimed.count],
      ['count', 'read', c.read.count],
      ['sum', 'stated', c.claimed.sum],
      ['sum', 'read', c.read.sum],
    ];
    for (const [figure, side, value] of figures) {
      // a figure written with other separators (1.234,50) is in the report, not guessed at here
      const n = typeof value === 'number' ? value : value !== undefined && /^[+-]?\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
      if (value !== undefined && Number.isFinite(n)) samples.push({ labels: { ...labels, figure, side }, value: n });
    }
  }
  return samples;
}
