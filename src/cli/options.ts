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

const encoding = z
  .string()
  .transform((v) => v.toLowerCase().replace(/_/g, '-'))
  .pipe(z.enum(['utf-8', 'utf8', 'shift-jis', 'sjis', 'cp932', 'windows-31j']))
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
  'max-errors': z.string().regex(/^\d+$/, '--max-errors must be a whole number').transform(Number).optional(),
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
  'stage-id': z.array(z.string().regex(/^\d+$/, '--stage-id must be a whole number').transform(Number)).default([]),
  'source-key': z.array(z.string().min(1)).default([]),
  'error-code': z.array(z.string().min(1)).default([]),
  'load-id': z.array(z.string().regex(/^\d+$/, '--load-id must be a whole number').transform(Number)).default([]),
  'all-errors': z.boolean().default(false),
  set: z.array(z.string()).default([]),
  reason: z.string().optional(),
  operator: z.string().min(1).max(128).optional(),
  'older-than': z
    .string()
    .regex(/^\d+(ms|s|m|h)?$/, '--older-than takes a duration such as 15m, 900s or 1h')
    .transform((v) => {
      const m = /^(\d+)(ms|s|m|h)?$/.exec(v);
      const n = Number(m?.[1]);
      const unit = m?.[2] ?? 'm';
      return n * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit as 'ms' | 's' | 'm' | 'h'];
    })
    .default(15 * 60_000),
  'lock-timeout': z
    .string()
    .regex(/^\d+(ms|s|m|h)?$/, '--lock-timeout takes a duration such as 10m, 30s or 0')
    .transform((v) => {
      const m = /^(\d+)(ms|s|m|h)?$/.exec(v);
      return Number(m?.[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m?.[2] ?? 'm') as 'ms' | 's' | 'm' | 'h'];
    })
    .optional(),
  format: z.enum(['csv', 'json']).default('csv'),
  'no-process': z.boolean().default(false),
  overlap: z.boolean().default(false),
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
        'lock-timeout': { type: 'string' },
        format: { type: 'string' },
        'no-process': { type: 'boolean' },
        overlap: { type: 'boolean' },
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
  if (commandName === undefined) return { command: null, files: [], options: result.data };
  if (!(COMMANDS as readonly string[]).includes(commandName)) {
    throw new UserError(`unknown command "${commandName}" (commands: ${COMMANDS.join(', ')}; see --help)`);
  }
  const command = commandName as Command;
  if ((command === 'load' || command === 'stage') && files.length === 0) throw new UserError(`${command}: name at least one file`);
  if (command !== 'bench' && (result.data.workers?.length ?? 1) > 1) throw new UserError('--workers takes one number (a list is for bench)');
  if (command !== 'load' && command !== 'stage' && files.length > 0) throw new UserError(`${command} takes no file arguments (got ${files[0]})`);
  return { command, files, options: result.data };
}

export const USAGE = `Usage: order-loader <command> [options]

Commands:
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
  --max-errors <n>     stop processing once more than n rows ended ERROR (exit 1)
  --max-attempts <n>   attempts before a transiently failing row ends ERROR (default 5)
  --encoding <name>    utf-8 (default, BOM stripped) | shift_jis | cp932
  --delimiter <c>      field delimiter (default ","; "tab" for tab)
  --json               one JSON document on stdout
  --log-level <level>  fatal|error|warn|info|debug|trace|silent; logs are JSON lines (default info,
                       or warn on a terminal without --log-file)
  --log-file <path>    write logs there instead of stderr
  --dry-run            load/stage: parse and validate only, write nothing; retry/recover: show, change nothing
  --overlap            load on a server database: process while staging (faster; for files whose keys are
                       unique: a key repeated in the file may reach orders with an earlier line's values)
  --limit <n>          runs: how many (default 20); errors: at most n rows
  --lock-timeout <t>   pglite:<dir> is one process's at a time: how long to wait while another command
                       holds it (default 10m; status, errors and runs: 0, they refuse at once)

Exit codes: 0 every row DONE; 2 finished, some rows ERROR or rejected; 1 could not finish.`;
