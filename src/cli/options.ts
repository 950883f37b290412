/**
 * The command line read into a command, its files and its options: parseArgs for the syntax,
 * zod for the values, both derived from the option table (src/cli/option-table.ts).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import { UserError } from '../errors.js';
import { COMMANDS, commandsTaking, OPTIONS, type Command, type OptionName } from './option-table.js';

export { COMMANDS, type Command } from './option-table.js';

type Shape = { [K in OptionName]: (typeof OPTIONS)[K]['schema'] };
const entries = Object.entries(OPTIONS) as Array<[OptionName, (typeof OPTIONS)[OptionName]]>;

export const cliOptionsSchema = z.object(Object.fromEntries(entries.map(([name, o]) => [name, o.schema])) as Shape);
export type CliOptions = z.infer<typeof cliOptionsSchema>;

const parseArgsOptions: NonNullable<ParseArgsConfig['options']> = Object.fromEntries(
  // parseArgs checks `multiple` and `short` whenever the key is present: only set ones are given
  entries.map(([name, o]) => [
    name,
    { type: o.type, ...(o.multiple ? { multiple: true } : {}), ...(o.short === undefined ? {} : { short: o.short }) },
  ]),
);

/** serve: how long a request waits for the folder before it says "a load is running". */
export const SERVE_LOCK_WAIT_MS = 1000;

/**
 * How long a command waits for an embedded database folder another process holds: a writing
 * command queues behind the one before it (an overlapping cron run); reading commands answer a
 * person at once and say who holds the folder.
 */
export function defaultLockTimeoutMs(command: Command): number {
  if (command === 'serve') return SERVE_LOCK_WAIT_MS;
  return command === 'status' || command === 'errors' || command === 'runs' ? 0 : 10 * 60_000;
}

/**
 * How long a command keeps trying a server database it cannot reach: a scheduled job waits out a
 * database restart; reading commands answer a person at once, as for the folder lock.
 */
export function defaultConnectTimeoutMs(command: Command): number {
  return defaultLockTimeoutMs(command) === 0 ? 0 : 5 * 60_000;
}

export interface ParsedCommandLine {
  command: Command | null;
  files: string[];
  options: CliOptions;
  /** `help [command]`, `<command> --help`, `-h`: print the usage (of that command) and exit 0. */
  help?: { command: Command | null } | undefined;
  /** The options given on the command line (not their defaults), in the table's order. */
  given: OptionName[];
}

/** An option given to a command that does not take it: refused in one line, as git and psql do. */
function refuseUnused(command: Command, given: readonly OptionName[]): void {
  const unused = given.find((name) => !commandsTaking(name).includes(command));
  if (unused !== undefined) throw new UserError(`${command} does not take --${unused} (order-loader help ${command} lists its options)`);
}

export function parseCommandLine(argv: string[]): ParsedCommandLine {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: parseArgsOptions });
  } catch (error) {
    throw new UserError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  const result = cliOptionsSchema.safeParse(parsed.values);
  if (!result.success) {
    const issue = result.error.issues[0];
    const name = issue?.path[0];
    throw new UserError(`${typeof name === 'string' ? `--${name}: ` : ''}${issue?.message ?? 'invalid option'}`);
  }
  const given = (Object.keys(OPTIONS) as OptionName[]).filter((name) => parsed.values[name] !== undefined);
  const [commandName, ...files] = parsed.positionals;
  if (commandName === undefined)
    return { command: null, files: [], options: result.data, help: result.data.help ? { command: null } : undefined, given };
  const known = (name: string): Command => {
    if (!(COMMANDS as readonly string[]).includes(name)) {
      throw new UserError(`unknown command "${name}" (commands: ${COMMANDS.join(', ')}; see order-loader help)`);
    }
    return name as Command;
  };
  if (commandName === 'help') {
    const topic = files[0];
    return { command: null, files: [], options: result.data, help: { command: topic === undefined ? null : known(topic) }, given };
  }
  const command = known(commandName);
  // asking for help is never an error, whatever else the command line lacks
  if (result.data.help) return { command, files, options: result.data, help: { command }, given };
  refuseUnused(command, given);
  if ((command === 'load' || command === 'stage') && files.length === 0) throw new UserError(`${command}: name at least one file`);
  if (command !== 'bench' && (result.data.workers?.length ?? 1) > 1)
    throw new UserError('--workers takes one number (a list is for bench)');
  if ((command === 'guess' || command === 'preview') && files.length !== 1) throw new UserError(`${command}: name one file to read`);
  if (command === 'accept' && (files.length !== 1 || !/^[1-9]\d*$/.test(files[0] ?? '')))
    throw new UserError('accept: name one load by its number (order-loader status lists the loads)');
  if (command !== 'load' && command !== 'stage' && command !== 'guess' && command !== 'preview' && command !== 'accept' && files.length > 0)
    throw new UserError(`${command} takes no file arguments (got ${files[0] ?? ''})`);
  return { command, files, options: result.data, given };
}
