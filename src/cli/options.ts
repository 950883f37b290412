import { parseArgs } from 'node:util';
import { z } from 'zod';
import { UserError } from '../errors.js';

export const COMMANDS = ['init', 'load', 'stage', 'process', 'status', 'runs'] as const;
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
  workers: positiveInt('--workers', 64).default(1),
  'max-errors': z.string().regex(/^\d+$/, '--max-errors must be a whole number').transform(Number).optional(),
  'max-attempts': positiveInt('--max-attempts', 100).default(5),
  encoding: encoding.default('utf-8'),
  delimiter: z
    .string()
    .transform((v) => (v === '\\t' || v.toLowerCase() === 'tab' ? '\t' : v))
    .refine((v) => v.length === 1 && v !== '"' && v !== '\n' && v !== '\r', '--delimiter must be one character (not a quote or newline)')
    .default(','),
  json: z.boolean().default(false),
  'log-level': z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  'log-file': z.string().min(1).optional(),
  limit: positiveInt('--limit', 10_000).default(20),
  help: z.boolean().default(false),
  version: z.boolean().default(false),
});

export type CliOptions = z.infer<typeof cliOptionsSchema>;

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
  if (command !== 'load' && command !== 'stage' && files.length > 0) throw new UserError(`${command} takes no file arguments (got ${files[0]})`);
  return { command, files, options: result.data };
}

export const USAGE = `Usage: order-loader <command> [options]

Commands:
  init                 create or upgrade the schema (safe to run again)
  load <file…>         stage each file, then process until nothing is claimable
  stage <file…>        stage only
  process              process claimable rows of any load (run several at once to scale out)
  status               counts per status and per load, oldest waiting row
  runs                 run history with events

Options:
  --db <url>           pglite:<dir> | pglite:memory | postgres://user@host:5432/db | oracle://user@host:1521/service
                       (default: $ORDER_LOADER_DB, then pglite:./.order-loader/db; password: $ORDER_LOADER_DB_PASSWORD)
  --chunk-size <n>     rows per processing transaction (default 2000)
  --batch-size <n>     lines per staging transaction (default 5000)
  --workers <n>        concurrent processing workers (default 1; server databases only)
  --max-errors <n>     stop processing once more than n rows ended ERROR (exit 1)
  --max-attempts <n>   attempts before a transiently failing row ends ERROR (default 5)
  --encoding <name>    utf-8 (default, BOM stripped) | shift_jis | cp932
  --delimiter <c>      field delimiter (default ","; "tab" for tab)
  --json               one JSON document on stdout
  --log-level <level>  fatal|error|warn|info|debug|trace|silent (default info); logs are JSON lines
  --log-file <path>    write logs there instead of stderr
  --limit <n>          runs: how many (default 20)

Exit codes: 0 every row DONE; 2 finished, some rows ERROR or rejected; 1 could not finish.`;
