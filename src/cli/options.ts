import { parseArgs } from 'node:util';
import { z } from 'zod';
import { UserError } from '../errors.js';

export const COMMANDS = ['init', 'load', 'stage', 'process', 'retry', 'recover', 'status', 'errors', 'runs', 'bench'] as const;
export type Command = (typeof COMMANDS)[number];

const positiveInt = (name: string, max = 10_000_000) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, `${name} must be between 1 and ${max}`);

/** The spellings the README and --help document (a few common aliases are accepted too). */
export const ENCODING_NAMES = ['utf-8', 'shift_jis', 'cp932', 'windows-31j'] as const;

/**
 * A whole number that a JavaScript number holds exactly: above 2^53 - 1 it would be silently
 * rounded to another id (or overflow the database's bigint), so it is refused in one line.
 */
const safeWholeNumber = (name: string) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .refine((v) => Number.isSafeInteger(Number(v)), `${name} must be a whole number up to ${Number.MAX_SAFE_INTEGER}`)
    .transform(Number);

const DURATION_UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
type DurationUnit = keyof typeof DURATION_UNITS;

/** A duration in milliseconds: a whole number with ms, s, m or h (a bare number is in `bareUnit`). */
const duration = (name: string, bareUnit: DurationUnit, example: string) =>
  z
    .string()
    .regex(/^\d+(ms|s|m|h)?$/, `${name} takes ${example}`)
    .transform((v) => {
      const m = /^(\d+)(ms|s|m|h)?$/.exec(v);
      return Number(m?.[1]) * DURATION_UNITS[(m?.[2] ?? bareUnit) as DurationUnit];
    });

const encoding = z
  .string()
  .transform((v) => v.toLowerCase().replace(/_/g, '-'))
  .pipe(z.enum(['utf-8', 'utf8', 'shift-jis', 'sjis', 'cp932', 'windows-31j'], { error: `--encoding must be one of ${ENCODING_NAMES.join(', ')}` }))
  .transform((v) => (v === 'utf-8' || v === 'utf8' ? ('utf-8' as const) : ('shift_jis' as const)));

export const cliOptionsSchema = z.object({
  db: z.string().min(1).optional(),
  'chunk-size': positiveInt('--chunk-size', 65_535).default(2000),
  'batch-size': positiveInt('--batch-size', 100_000).default(5000),
  workers: z
    .string()
    .regex(/^\d+(,\d+)*$/, '--workers must be a whole number (bench: a list such as 1,2,4)')
    .transform((v) => v.split(',').map(Number))
    .refine((list) => list.every((n) => n >= 1 && n <= 64), '--workers must be between 1 and 64')
    .optional(),
  rows: positiveInt('--rows', 100_000_000).default(100_000),
  'chunk-sizes': z
    .string()
    .regex(/^\d+(,\d+)*$/, '--chunk-sizes must be a list such as 500,2000,10000')
    .transform((v) => v.split(',').map(Number))
    .refine((list) => list.every((n) => n >= 1 && n <= 65_535), '--chunk-sizes must be between 1 and 65535')
    .default([500, 2000, 10000]),
  chart: z.string().min(1).default('order-loader-bench.svg'),
  'max-errors': safeWholeNumber('--max-errors').optional(),
  'max-attempts': positiveInt('--max-attempts', 100).default(5),
  encoding: encoding.default('utf-8'),
  delimiter: z
    .string()
    .transform((v) => (v === '\\t' || v.toLowerCase() === 'tab' ? '\t' : v))
    .refine((v) => v.length === 1 && v !== '"' && v !== '\n' && v !== '\r', '--delimiter must be one character (not a quote or newline)')
    .default(','),
  json: z.boolean().default(false),
  'log-level': z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
  'log-file': z.string().min(1).optional(),
  limit: positiveInt('--limit', 10_000_000).optional(),
  'dry-run': z.boolean().default(false),
  'stage-id': z.array(safeWholeNumber('--stage-id')).default([]),
  'source-key': z.array(z.string().min(1)).default([]),
  'error-code': z.array(z.string().min(1)).default([]),
  'load-id': z.array(safeWholeNumber('--load-id')).default([]),
  'all-errors': z.boolean().default(false),
  set: z.array(z.string()).default([]),
  // the audit column holds 1000 characters: refused here, before anything is done
  reason: z.string().max(1000, '--reason takes at most 1000 characters').optional(),
  operator: z.string().min(1).max(128).optional(),
  'older-than': duration('--older-than', 'm', 'a duration such as 15m, 900s or 1h')
    .refine((ms) => ms <= 100 * 365 * 24 * 3_600_000, '--older-than takes at most 100 years')
    .default(15 * 60_000),
  'row-lock-wait': duration('--row-lock-wait', 's', 'a duration such as 10s, 500ms or 2m (0: wait for ever)')
    .refine((ms) => ms <= 24 * 3_600_000, '--row-lock-wait must be at most 24h')
    .default(10_000),
  'lock-timeout': duration('--lock-timeout', 'm', 'a duration such as 10m, 30s or 0').optional(),
  format: z.enum(['csv', 'json']).default('csv'),
  'no-process': z.boolean().default(false),
  overlap: z.boolean().default(false),
  restage: z.boolean().default(false),
  help: z.boolean().default(false),
  version: z.boolean().default(false),
});

export type CliOptions = z.infer<typeof cliOptionsSchema>;

/**
 * How long a command waits for an embedded database folder another process holds: a writing
 * command queues behind the one before it (an overlapping cron run); reading commands answer a
 * person at once and say who holds the folder.
 */
export function defaultLockTimeoutMs(command: Command): number {
  return command === 'status' || command === 'errors' || command === 'runs' ? 0 : 10 * 60_000;
}

export interface ParsedCommandLine {
  command: Command | null;
  files: string[];
  options: CliOptions;
  /** `help [command]`, `<command> --help`, `-h`: print the usage (of that command) and exit 0. */
  help?: { command: Command | null } | undefined;
}

export function parseCommandLine(argv: string[]): ParsedCommandLine {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        db: { type: 'string' },
        'chunk-size': { type: 'string' },
        'batch-size': { type: 'string' },
        workers: { type: 'string' },
        'max-errors': { type: 'string' },
        'max-attempts': { type: 'string' },
        encoding: { type: 'string' },
        delimiter: { type: 'string' },
        json: { type: 'boolean' },
        'log-level': { type: 'string' },
        'log-file': { type: 'string' },
        limit: { type: 'string' },
        'dry-run': { type: 'boolean' },
        'stage-id': { type: 'string', multiple: true },
        'source-key': { type: 'string', multiple: true },
        'error-code': { type: 'string', multiple: true },
        'load-id': { type: 'string', multiple: true },
        'all-errors': { type: 'boolean' },
        set: { type: 'string', multiple: true },
        reason: { type: 'string' },
        operator: { type: 'string' },
        'older-than': { type: 'string' },
        'row-lock-wait': { type: 'string' },
        'lock-timeout': { type: 'string' },
        format: { type: 'string' },
        'no-process': { type: 'boolean' },
        overlap: { type: 'boolean' },
        restage: { type: 'boolean' },
        rows: { type: 'string' },
        'chunk-sizes': { type: 'string' },
        chart: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UserError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  const result = cliOptionsSchema.safeParse(parsed.values);
  if (!result.success) {
    const issue = result.error.issues[0];
    const name = issue?.path[0];
    throw new UserError(`${typeof name === 'string' ? `--${name}: ` : ''}${issue?.message ?? 'invalid option'}`);
  }
  const [commandName, ...files] = parsed.positionals;
  if (commandName === undefined) return { command: null, files: [], options: result.data, help: result.data.help ? { command: null } : undefined };
  const known = (name: string): Command => {
    if (!(COMMANDS as readonly string[]).includes(name)) {
      throw new UserError(`unknown command "${name}" (commands: ${COMMANDS.join(', ')}; see order-loader help)`);
    }
    return name as Command;
  };
  if (commandName === 'help') {
    const topic = files[0];
    return { command: null, files: [], options: result.data, help: { command: topic === undefined ? null : known(topic) } };
  }
  const command = known(commandName);
  // asking for help is never an error, whatever else the command line lacks
  if (result.data.help) return { command, files, options: result.data, help: { command } };
  if ((command === 'load' || command === 'stage') && files.length === 0) throw new UserError(`${command}: name at least one file`);
  if (command !== 'bench' && (result.data.workers?.length ?? 1) > 1) throw new UserError('--workers takes one number (a list is for bench)');
  if (command !== 'load' && command !== 'stage' && files.length > 0) throw new UserError(`${command} takes no file arguments (got ${files[0]})`);
  return { command, files, options: result.data };
}

export const USAGE = `Usage: order-loader <command> [options]

Commands (order-loader help <command>, or <command> --help, shows a command's options):
  init                 create or upgrade the schema (safe to run again)
  load <file…>         stage each file, then process until nothing is claimable
  stage <file…>        stage only
  process              process claimable rows of any load (run several at once on a server database)
  status               counts per status and per load, oldest waiting row
  retry                ERROR → READY for the chosen rows, audited, then process them
                       --stage-id/--source-key/--error-code/--load-id (repeatable) or --all-errors;
                       --set field=value (repeatable corrections); --reason (required); --operator;
                       --dry-run shows what would change; --no-process only marks them READY
  recover              PROCESSING rows no live transaction holds, older than --older-than (15m) → READY, audited
  errors               ERROR rows with their latest error: --format csv (re-loadable once fixed) | json;
                       --load-id, --error-code, --limit
  runs                 run history with events
  bench                synthetic orders staged and processed per --chunk-sizes × --workers, in a workspace
                       of its own (dropped afterwards); a table, --json, and an SVG chart (--chart path)
                       --rows (default 100000), --chunk-sizes (default 500,2000,10000), --workers (default 1,2,4)

Options:
  --db <url>           pglite:<dir> | pglite:memory | postgres://user@host:5432/db | oracle://user@host:1521/service
                       (default: $ORDER_LOADER_DB, then pglite:./.order-loader/db; password: $ORDER_LOADER_DB_PASSWORD)
  --chunk-size <n>     rows per processing transaction (default 2000)
  --batch-size <n>     lines per staging transaction (default 5000)
  --workers <n>        concurrent processing workers (default 2; server databases only, PGlite has 1)
  --max-errors <n>     stop once more than n rows were rejected: lines rejected while staging plus
                       rows ended ERROR while processing (exit 1; what was committed stays)
  --max-attempts <n>   attempts at a row's current values before transient failures end it ERROR
                       (default 5; a changed row and an operator's retry start again at 0)
  --row-lock-wait <t>  longest a chunk waits for a row another session holds (default 10s; 500ms, 2m;
                       0 waits for ever): that row then waits in RETRY_WAIT, the rest of the chunk commits
  --encoding <name>    utf-8 (default, BOM stripped) | shift_jis | cp932 | windows-31j (the last three: one
                       encoding, Microsoft's Shift_JIS)
  --delimiter <c>      field delimiter (default ","; "tab" for tab)
  --json               one JSON document on stdout
  --log-level <level>  fatal|error|warn|info|debug|trace|silent; logs are JSON lines (default info,
                       or warn on a terminal without --log-file, written there as readable lines)
  --log-file <path>    write logs there instead of stderr
  --dry-run            load/stage: parse and validate only, write nothing; retry/recover: show, change nothing
  --overlap            load on a server database: process while staging (faster; for files whose keys are
                       unique: a key repeated in the file may reach orders with an earlier line's values)
  --restage            load/stage: stage each file again as a new load, even when the same file (same bytes,
                       encoding and delimiter) was staged completely before
  --limit <n>          runs: how many (default 20); errors: at most n rows
  --lock-timeout <t>   pglite:<dir> is one process's at a time: how long to wait while another command
                       holds it (default 10m; status, errors and runs: 0, they refuse at once)

Exit codes: 0 every row DONE; 2 finished, some rows ERROR or rejected; 1 could not finish.`;

const COMMON_OPTIONS = `Common options: --db <url>, --json, --log-level <level>, --log-file <path>, --lock-timeout <t> (order-loader help tells more).`;
const PROCESS_OPTIONS = `  --chunk-size <n>     rows per processing transaction, 1–65535 (default 2000; larger values are refused)
  --workers <n>        concurrent processing workers, 1–64 (default 2; server databases only, PGlite has 1)
  --max-errors <n>     stop once more than n rows were rejected: lines rejected while staging plus
                       rows ended ERROR while processing (exit 1; what was committed stays)
  --max-attempts <n>   attempts at a row's current values before transient failures end it ERROR,
                       1–100 (default 5; a changed row and an operator's retry start again at 0)
  --row-lock-wait <t>  longest a chunk waits for a row another session holds (default 10s; 500ms, 2m;
                       0 waits for ever): that row then waits in RETRY_WAIT, the rest of the chunk commits`;
const FILE_OPTIONS = `  --batch-size <n>     lines per staging transaction, 1–100000 (default 5000)
  --encoding <name>    utf-8 (default) | shift_jis | cp932 | windows-31j
  --delimiter <c>      field delimiter (default ","; "tab" for tab)
  --restage            stage each file again as a new load, even when the same file (same bytes,
                       encoding and delimiter) was staged completely before`;

/** Each command's own usage: what it does, its options, its exit codes. */
const COMMAND_USAGE: Record<Command, string> = {
  init: `Usage: order-loader init [--db <url>]

Create or upgrade the schema (safe to run again; every other command applies pending migrations too).
Exit codes: 0 done; 1 could not.`,
  load: `Usage: order-loader load <file…> [options]

Stage each file, then process until nothing is claimable.
${FILE_OPTIONS}
${PROCESS_OPTIONS}
  --overlap            server databases: process while staging (for files whose keys are unique)
  --dry-run            parse and validate with the rules of a real load, write nothing, open no database
Exit codes: 0 every row DONE; 2 finished, some rows ERROR, rejected or waiting to retry; 1 could not finish.`,
  stage: `Usage: order-loader stage <file…> [options]

Stage only (order-loader process merges the rows later).
${FILE_OPTIONS}
  --dry-run            parse and validate with the rules of a real load, write nothing, open no database
Exit codes: 0 nothing rejected; 2 some lines rejected or rows ERROR; 1 could not finish.`,
  process: `Usage: order-loader process [options]

Process claimable rows of any load until nothing is claimable now (run several at once to scale out).
${PROCESS_OPTIONS}
Exit codes: 0 every claimed row DONE; 2 some ended ERROR or wait in RETRY_WAIT; 1 could not finish.`,
  retry: `Usage: order-loader retry (--stage-id <n> | --source-key <key> | --error-code <code> | --load-id <n> … | --all-errors)
                          --reason <text> [--set field=value …] [--operator <name>] [--dry-run] [--no-process]

ERROR → READY for the chosen rows, audited, then process them. A selector given several times matches any of
its values; different selectors must all match.
  --set field=value    correct customer_id, order_date, amount or currency (checked like a file's values)
  --reason <text>      required; recorded in order_stage_audit
  --operator <name>    recorded in order_stage_audit (default: the OS user@host)
  --dry-run            show what would change, change nothing
  --no-process         only mark the rows READY
${PROCESS_OPTIONS}
Exit codes: 0 changed (and, when processed, every row DONE); 2 processed, some rows ERROR or waiting; 1 could not.`,
  recover: `Usage: order-loader recover [--older-than <duration>] [--reason <text>] [--operator <name>] [--dry-run]

PROCESSING rows that no live transaction holds and older than --older-than → READY, audited.
  --older-than <d>     a number with ms, s, m or h (a bare number is minutes); default 15m
  --reason <text>      recorded in order_stage_audit (default: says what recover did)
  --operator <name>    recorded in order_stage_audit (default: the OS user@host)
  --dry-run            show what would change, change nothing
Exit codes: 0 done (also when no row needed it); 1 could not.`,
  status: `Usage: order-loader status [--json]

Counts per status and per load, the oldest waiting row, RETRY_WAIT, the last 5 runs. Exit 0.`,
  errors: `Usage: order-loader errors [--format csv|json] [--load-id <n>] [--error-code <code>] [--limit <n>]

ERROR rows with their latest error. CSV (default) can be loaded again once fixed. Exit 0.
  --load-id, --error-code   repeatable filters
  --limit <n>          at most n rows (default: all, streamed)`,
  runs: `Usage: order-loader runs [--limit <n>] [--json]

Run history with its events, newest first. --limit: how many runs (default 20). Exit 0.`,
  bench: `Usage: order-loader bench [--rows <n>] [--chunk-sizes <list>] [--workers <list>] [--chart <path>] [--json]

Synthetic orders staged and processed per chunk size × workers, each in a schema of its own (dropped).
  --rows <n>           default 100000
  --chunk-sizes <list> default 500,2000,10000
  --workers <list>     default 1,2,4
  --chart <path>       the SVG chart, default ./order-loader-bench.svg (relative to the current directory)
Exit codes: 0 done; 1 interrupted or could not run.`,
};

/** The usage of one command, or of all (null). */
export function usageFor(command: Command | null): string {
  return command === null ? USAGE : `${COMMAND_USAGE[command]}\n${COMMON_OPTIONS}`;
}
