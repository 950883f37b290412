/**
 * Every command-line option, declared once: its parseArgs type, its zod validation (with its
 * default), and its usage lines. src/cli/options.ts derives the parseArgs configuration and the
 * validation schema from this table; src/cli/usage.ts the usage texts. Which options a command's
 * usage lists, and in what order, is said by that command (src/cli/commands/).
 *
 * Each option says which commands take it (`commands`; a common option: every command): an
 * option given to a command that does not take it is refused (src/cli/options.ts), as is one
 * the database cannot honour (`needs`, checked once --db is known: src/cli/command.ts).
 * The table's order is the order of the Options section of `order-loader help` (then the options
 * only their commands tell), and the order in which invalid values are checked (the first is said).
 */
import { z } from 'zod';
import { DEFAULT_MAX_INFLATE } from '../input/inflate-cap.js';
import { delimiter, duration, encoding, numberList, positiveInt, safeWholeNumber, sinceDate } from './option-values.js';

export const COMMANDS = [
  'init',
  'load',
  'stage',
  'process',
  'retry',
  'recover',
  'accept',
  'status',
  'errors',
  'runs',
  'guess',
  'preview',
  'bench',
  'serve',
] as const;
export type Command = (typeof COMMANDS)[number];

/** What a database can do that an option needs (src/engine/open.ts targetCapabilities). */
export interface OptionNeed {
  /** More than one connection at once: PGlite has one. */
  capability: 'concurrentConnections';
  /** The commands it is refused by without it (bench measures what it can and says what it skipped). */
  commands: readonly Command[];
  /** Why, after "<command> --<option> is refused on <database>: ". */
  why: string;
  /** Whether the value given asks for what the database cannot do (default: any value does). */
  asks?: (value: unknown) => boolean;
}

interface Usage {
  /** The commands that take it; a common option is taken by every command. */
  commands?: readonly Command[];
  /** What the database must be able to do for the option to do anything (load, process and retry). */
  needs?: OptionNeed;
  /** The value's placeholder in usage lines (`<n>`); none for a flag. */
  arg?: string;
  /** Its line(s) under Options in `order-loader help`; without it, only the commands that take it tell it. */
  help?: string;
  /** Its line(s) in a command's usage, where they say more than `help` (its range, say). */
  detail?: string;
  /** Named on the "Common options" line of every command's usage. */
  common?: true;
}

export interface OptionSpec<S extends z.ZodType = z.ZodType> extends Usage {
  type: 'string' | 'boolean';
  short?: string;
  /** Repeatable: every value is kept, in order. */
  multiple?: true;
  /** What a given value must be, what it becomes, and the value when not given. */
  schema: S;
}

/** An option taking one value (the schema says the default, or .optional()). */
const value = <S extends z.ZodType>(schema: S, usage: Usage = {}): OptionSpec<S> => ({ type: 'string', schema, ...usage });
/** An option taking a value each time it is given. */
const repeatable = <S extends z.ZodType>(item: S, usage: Usage = {}): OptionSpec<z.ZodDefault<z.ZodArray<S>>> => ({
  type: 'string',
  multiple: true,
  schema: z.array(item).default([]),
  ...usage,
});
/** An option without a value: false unless given. */
const flag = (usage: Usage & { short?: string } = {}): OptionSpec<z.ZodDefault<z.ZodBoolean>> => ({
  type: 'boolean',
  schema: z.boolean().default(false),
  ...usage,
});

export const OPTIONS = {
  db: value(z.string().min(1).optional(), {
    arg: '<url>',
    common: true,
    help: `pglite:<dir> | pglite:memory | postgres://user@host:5432/db | oracle://user@host:1521/service
(default: $ORDER_LOADER_DB, then pglite:./.order-loader/db; password: $ORDER_LOADER_DB_PASSWORD)`,
  }),
  'chunk-size': value(positiveInt('--chunk-size', 65_535).default(2000), {
    commands: ['load', 'process', 'retry'],
    arg: '<n>',
    help: 'rows per processing transaction (default 2000)',
    detail: 'rows per processing transaction, 1–65535 (default 2000; larger values are refused)',
  }),
  'batch-size': value(positiveInt('--batch-size', 100_000).default(5000), {
    commands: ['load', 'stage', 'bench'],
    arg: '<n>',
    help: 'lines per staging transaction (default 5000)',
    detail: 'lines per staging transaction, 1–100000 (default 5000)',
  }),
  // a list only for bench (src/cli/options.ts refuses a list elsewhere); the default is the command's
  workers: value(numberList('--workers', 64, 'a whole number (bench: a list such as 1,2,4)').optional(), {
    commands: ['load', 'process', 'retry', 'bench'],
    needs: {
      capability: 'concurrentConnections',
      commands: ['load', 'process', 'retry'],
      why: 'it has one connection, so one worker processes',
      // --workers 1 asks for what PGlite does
      asks: (value) => Array.isArray(value) && value.some((n) => n !== 1),
    },
    arg: '<n>',
    help: 'concurrent processing workers (default 2; server databases only, PGlite has 1)',
    detail: 'concurrent processing workers, 1–64 (default 2; server databases only, PGlite has 1)',
  }),
  'max-errors': value(safeWholeNumber('--max-errors').optional(), {
    commands: ['load', 'stage', 'process', 'retry'],
    arg: '<n>',
    help: `stop once more than n rows were rejected: lines rejected while staging plus
rows ended ERROR while processing (exit 1; what was committed stays)`,
  }),
  'max-attempts': value(positiveInt('--max-attempts', 100).default(5), {
    commands: ['load', 'process', 'retry'],
    arg: '<n>',
    help: `transient failures of a row's current values that end it ERROR (default 5;
counted again from 0 when its values change or an operator retries it)`,
    detail: `transient failures of a row's current values that end it ERROR, 1–100 (default 5;
counted again from 0 when its values change or an operator retries it)`,
  }),
  'row-lock-wait': value(
    duration('--row-lock-wait', 's', 'a duration such as 10s, 500ms or 2m (0: wait for ever)')
      .refine((ms) => ms <= 24 * 3_600_000, '--row-lock-wait must be at most 24h')
      .default(10_000),
    {
      commands: ['load', 'process', 'retry'],
      arg: '<t>',
      help: `longest a chunk waits for a row another session holds (default 10s; 500ms, 2m;
0 waits for ever): that row then waits in RETRY_WAIT, the rest of the chunk commits;
retry's batch of ERROR rows waits as long, then runs again and stops saying so`,
    },
  ),
  encoding: value(encoding.default('utf-8'), {
    commands: ['load', 'stage', 'preview'],
    arg: '<name>',
    help: `utf-8 (default, BOM stripped) | shift_jis | cp932 | windows-31j (those three: one
encoding, Microsoft's Shift_JIS) | euc-jp`,
    detail: 'utf-8 (default) | shift_jis | cp932 | windows-31j | euc-jp',
  }),
  delimiter: value(delimiter.default(','), {
    commands: ['load', 'stage', 'preview'],
    arg: '<c>',
    help: 'field delimiter (default ","; "tab" for tab)',
  }),
  profile: value(z.string().min(1).optional(), {
    commands: ['load', 'stage', 'preview', 'bench'],
    arg: '<file>',
    help: `load/stage/preview: read the files as a load profile says (YAML or JSON: encoding, CSV or
fixed width, columns, date and number forms; docs/files.md); without it the built-in format;
--encoding and --delimiter are then the profile's; bench: write the synthetic file in the
profile's shape and load it through the profile`,
  }),
  json: flag({ common: true, help: 'one JSON document on stdout' }),
  'log-level': value(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(), {
    arg: '<level>',
    common: true,
    help: `fatal|error|warn|info|debug|trace|silent; logs are JSON lines (default info,
or warn on a terminal without --log-file, written there as readable lines)`,
  }),
  'log-file': value(z.string().min(1).optional(), { arg: '<path>', common: true, help: 'write logs there instead of stderr' }),
  'dry-run': flag({
    commands: ['load', 'stage', 'retry', 'recover', 'accept'],
    help: 'load/stage: parse and validate only, write nothing; retry/recover/accept: show, change nothing',
  }),
  overlap: flag({
    commands: ['load'],
    needs: {
      capability: 'concurrentConnections',
      commands: ['load'],
      why: 'it has one connection, so staging and processing take turns',
    },
    help: 'load on a server database: process while staging (the default there; kept for scripts)',
  }),
  'no-overlap': flag({
    commands: ['load'],
    help: `load on a server database: process only once every file is staged (phases in sequence;
the default processes while staging, with the same outcome)`,
  }),
  restage: flag({
    commands: ['load', 'stage'],
    help: `load/stage: stage each file again as a new load, even when the same file (same bytes,
encoding and delimiter) was staged completely before`,
    detail: `stage each file again as a new load, even when the same file (same bytes,
encoding and delimiter) was staged completely before`,
  }),
  'max-inflate': value(positiveInt('--max-inflate', 1_000_000).default(DEFAULT_MAX_INFLATE), {
    commands: ['load', 'stage'],
    arg: '<n>',
    help: `load/stage: refuse a gzip file whose content is more than <n> times its compressed size
(default ${DEFAULT_MAX_INFLATE}; order files compress far less: the bench's 1M-row file 3 times): read up to there, then stopped as a damaged gzip is`,
    detail: `refuse a gzip file whose content is more than <n> times its compressed size, past its
first MiB (default ${DEFAULT_MAX_INFLATE}): the file is read up to there, then stopped as a damaged gzip is`,
  }),
  'archive-dir': value(z.string().min(1).optional(), {
    commands: ['load', 'stage'],
    arg: '<dir>',
    help: `load/stage: move each file whose load ended (exit 0 or 2) there, as load<id>-<name>
(same filesystem as the inbox, not the inbox itself; made when missing if its parent exists)`,
    detail: `move each file whose load ended (exit 0 or 2) there, as load<id>-<name>,
after the commit that ended it (same filesystem as the inbox, not the inbox itself, a
subfolder such as inbox/archive is fine; made when missing if its parent exists)`,
  }),
  'failed-dir': value(z.string().min(1).optional(), {
    commands: ['load', 'stage'],
    arg: '<dir>',
    help: `load/stage: move each file that cannot be read as an order file there, with
<name>.error.txt saying why; the other files are loaded (exit 2)`,
    detail: `move each file that cannot be read as an order file (header refused, stopped
at a line, truncated gzip) there beside <name>.error.txt; the others are loaded (exit 2)`,
  }),
  settle: value(duration('--settle', 's', 'a duration such as 30s, 2m or 0').default(30_000), {
    commands: ['load', 'stage'],
    arg: '<t>',
    help: `load/stage: a file of a directory or pattern modified less than this ago is still
being uploaded: left for the next run, said (default 30s; 0: none); a file named on the
command line whose last line has no line end within that time is waited for, then read
(exit 2 if it is still being written)`,
    detail: `a file of a directory or pattern modified less than this ago is still being
uploaded: left for the next run, said, exit 0 (default 30s; 0: none); a file named on the
command line whose last line has no line end within that time is waited for, then read
(exit 2 if it is still being written)`,
  }),
  'ready-suffix': value(
    z
      .string()
      .regex(/^[^/\\]+$/, '--ready-suffix takes a file name ending such as .done')
      .optional(),
    {
      commands: ['load', 'stage'],
      arg: '<s>',
      help: `load/stage: a file of a directory or pattern is read only once its marker
<name><s> (such as x.csv.done) exists, whatever its age; the marker moves with the file`,
      detail: `a file of a directory or pattern is read only once its marker <name><s>
(such as x.csv.done) exists, whatever its age; the marker moves with the file`,
    },
  ),
  profiles: value(z.string().min(1).optional(), {
    commands: ['load', 'stage'],
    arg: '<dir>',
    help: `load/stage: an inbox of several partners: each file is read with the profile of that
folder (its .yaml, .yml and .json files, all checked first) whose match: takes its name; a name
two match refuses the run (exit 1); a file none matches is not read: moved to --failed-dir with
a note, or left in the inbox (exit 2); not with --profile`,
    detail: `read each file with the profile of that folder (its .yaml, .yml and .json files, all
checked first) whose match: takes its name; a name two match: exit 1; a file none matches is
moved to --failed-dir with a note, or left in the inbox with a warning (exit 2); not with --profile`,
  }),
  limit: value(positiveInt('--limit', 10_000_000).optional(), {
    commands: ['errors', 'runs'],
    arg: '<n>',
    help: 'runs: how many (default 20); errors: at most n rows',
  }),
  'lock-timeout': value(duration('--lock-timeout', 'm', 'a duration such as 10m, 30s or 0').optional(), {
    arg: '<t>',
    common: true,
    help: `pglite:<dir>, an inbox folder of load/stage, and a file load/stage stages, are one
process's at a time: how long to wait while another command holds it (default 10m; status,
errors, runs: 0)`,
  }),
  'connect-timeout': value(duration('--connect-timeout', 'm', 'a duration such as 5m, 30s or 0').optional(), {
    arg: '<t>',
    common: true,
    help: `a server database that cannot be reached (refused, starting up, too many connections):
how long to keep trying, each wait logged (default 5m; status, errors and runs: 0, they
refuse at once); a refused login or a missing database fails at once`,
  }),
  'metrics-file': value(z.string().min(1).optional(), {
    arg: '<path>',
    common: true,
    help: `at the end of the command, write its numbers there in the Prometheus text format
(node_exporter's textfile collector: name it *.prom; replaced atomically; not with --dry-run)`,
  }),

  // retry and recover
  'stage-id': repeatable(safeWholeNumber('--stage-id'), {
    commands: ['retry'],
    arg: '<n>',
    help: 'retry: the rows with this stage_id (repeatable)',
  }),
  'source-key': repeatable(z.string().min(1), {
    commands: ['retry'],
    arg: '<key>',
    help: 'retry: the rows with this source_key (repeatable)',
  }),
  'error-code': repeatable(z.string().min(1), {
    commands: ['retry', 'errors'],
    arg: '<code>',
    help: 'retry, errors: the rows whose error has this code (repeatable)',
  }),
  'load-id': repeatable(safeWholeNumber('--load-id'), {
    commands: ['retry', 'errors', 'status'],
    arg: '<n>',
    help: 'retry, errors: the rows of this load; status: this load (repeatable)',
  }),
  'all-errors': flag({ commands: ['retry'], help: 'retry: every ERROR row' }),
  set: repeatable(z.string(), {
    commands: ['retry'],
    help: `retry: correct a value of the chosen rows (repeatable): customer_id, order_date,
amount, currency, or attributes.NAME (an attribute; empty removes it)`,
    arg: 'field=value',
    detail:
      "correct customer_id, order_date, amount or currency (checked like a file's values), or attributes.NAME (one of the row's attributes, a profile's `extra` columns; an empty value removes it)",
  }),
  // the audit column holds 1000 characters: refused here, before anything is done
  reason: value(z.string().max(1000, '--reason takes at most 1000 characters').optional(), {
    commands: ['retry', 'recover', 'accept'],
    arg: '<text>',
    help: 'retry, accept (required), recover: why, recorded in order_stage_audit',
  }),
  operator: value(z.string().min(1).max(128).optional(), {
    commands: ['retry', 'recover', 'accept', 'serve'],
    arg: '<name>',
    help: 'retry, recover, accept, serve: who, recorded in order_stage_audit (default: the OS user@host)',
    detail: 'recorded in order_stage_audit (default: the OS user@host)',
  }),
  'older-than': value(
    duration('--older-than', 'm', 'a duration such as 15m, 900s or 1h')
      .refine((ms) => ms <= 100 * 365 * 24 * 3_600_000, '--older-than takes at most 100 years')
      .default(15 * 60_000),
    {
      commands: ['recover'],
      arg: '<d>',
      help: 'recover: PROCESSING rows older than this, HELD rows held longer (default 15m)',
      detail: 'a number with ms, s, m or h (a bare number is minutes); default 15m',
    },
  ),
  'no-process': flag({
    commands: ['retry', 'accept'],
    help: 'retry, accept: only mark the rows READY, process nothing',
    detail: 'only mark the rows READY',
  }),

  // errors
  // errors: csv (its default) or json; load, stage and process: text (theirs) or markdown
  format: value(z.enum(['csv', 'excel', 'json', 'text', 'markdown']).optional(), {
    commands: ['load', 'stage', 'process', 'errors', 'preview'],
    arg: '<format>',
    help: `load, stage, process: text (default) | markdown; errors: csv (default) | excel | json;
preview: text (default on a terminal) | json (default otherwise)`,
  }),

  // status
  all: flag({ commands: ['status'], help: 'status: every load, not only the recent ones' }),
  since: value(sinceDate.optional(), {
    commands: ['status'],
    arg: '<when>',
    help: `status: the loads started since then: a date (2026-01-31), a time (2026-01-31T06:00Z)
or a duration ago (7d, 12h)`,
    detail: 'the loads started since then: a date (2026-01-31), a time (2026-01-31T06:00Z) or a duration ago (7d, 12h)',
  }),

  // guess
  out: value(z.string().min(1).optional(), {
    commands: ['guess'],
    arg: '<path>',
    help: 'guess: write the draft profile there (refused when it exists) instead of on stdout',
  }),

  // bench
  // the default is the command's: bench 100000 rows, preview 20 lines
  rows: value(positiveInt('--rows', 100_000_000).optional(), {
    commands: ['bench', 'preview'],
    arg: '<n>',
    help: 'bench: synthetic rows per case (default 100000); preview: lines shown (default 20)',
  }),
  'chunk-sizes': value(numberList('--chunk-sizes', 65_535, 'a list such as 500,2000,10000').default([500, 2000, 10000]), {
    commands: ['bench'],
    arg: '<list>',
    help: 'bench: the chunk sizes measured (default 500,2000,10000)',
    detail: 'default 500,2000,10000',
  }),
  chart: value(z.string().min(1).default('order-loader-bench.svg'), {
    commands: ['bench'],
    arg: '<path>',
    help: 'bench: where the SVG chart is written (default ./order-loader-bench.svg)',
    detail: 'the SVG chart, default ./order-loader-bench.svg (relative to the current directory)',
  }),

  // serve
  listen: value(z.string().min(1).default('127.0.0.1:8080'), {
    commands: ['serve'],
    arg: '<host:port>',
    help: 'serve: where the review page listens (default 127.0.0.1:8080; not loopback: only with --token-file)',
  }),
  'allow-edit': flag({ commands: ['serve'], help: 'serve: let the page correct and resubmit ERROR rows (audited as retry)' }),
  'operator-header': value(
    z
      .string()
      .regex(/^[A-Za-z0-9-]{1,64}$/, '--operator-header takes a header name such as X-Remote-User')
      .optional(),
    {
      commands: ['serve'],
      arg: '<name>',
      help: 'serve: behind a reverse proxy, the request header that names the operator (instead of --operator)',
    },
  ),
  'token-file': value(z.string().min(1).optional(), {
    commands: ['serve'],
    arg: '<path>',
    help: 'serve: a file holding the access token every request must present (needed off loopback)',
  }),

  help: flag({ short: 'h', help: "this text; with a command (or help <command>), that command's options" }),
  version: flag({ help: "the program's version" }),
};

export type OptionName = keyof typeof OPTIONS;

/** How an option is named in usage texts: `--chunk-size <n>`. */
/** The commands that take an option: those it names, else (a common option, --help, --version) every command. */
export function commandsTaking(name: OptionName): readonly Command[] {
  const spec: Usage = OPTIONS[name];
  return spec.commands ?? COMMANDS;
}

export function optionLabel(name: OptionName, arg: string | undefined = OPTIONS[name].arg): string {
  return arg === undefined ? `--${name}` : `--${name} ${arg}`;
}
