/**
 * The usage texts, from the option table (src/cli/option-table.ts) and each command's usage
 * (src/cli/commands/): `order-loader help` and `order-loader help <command>`.
 */
import type { OptionLine } from './command.js';
import { COMMAND_TABLE } from './commands/index.js';
import type { Command } from './options.js';
import { OPTIONS, optionLabel, type OptionName } from './option-table.js';

/** Where the text of a usage line starts, after two spaces of indent. */
const COLUMN = 21;

/** A label and its text; the text's further lines are indented to the text column. */
function row(label: string, text: string): string {
  // a label wider than the column is set apart by three spaces
  const head = label.length < COLUMN ? label.padEnd(COLUMN) : `${label}   `;
  return `  ${head}${text.replaceAll('\n', `\n${' '.repeat(COLUMN + 2)}`)}`;
}

function optionRow(line: OptionLine): string {
  if (typeof line === 'string') {
    return row(optionLabel(line), OPTIONS[line].detail ?? OPTIONS[line].help ?? '');
  }
  const names: readonly OptionName[] = typeof line.option === 'string' ? [line.option] : line.option;
  // options that share a line are named without their placeholders
  const label = names.length === 1 ? optionLabel(names[0] as OptionName, line.arg) : names.map((n) => `--${n}`).join(', ');
  return row(label, line.text);
}

const names = Object.keys(OPTIONS) as OptionName[];

export const USAGE = `Usage: order-loader <command> [options]

Commands (order-loader help <command>, or <command> --help, shows a command's options):
${Object.values(COMMAND_TABLE)
  .map((c) => row(c.usage.label, c.usage.summary))
  .join('\n')}

Options:
${names.flatMap((n) => (OPTIONS[n].help === undefined ? [] : [row(optionLabel(n), OPTIONS[n].help)])).join('\n')}

Exit codes: 0 every row DONE; 2 finished, some rows ERROR or rejected; 1 could not finish.`;

const COMMON_OPTIONS = `Common options: ${names
  .filter((n) => OPTIONS[n].common === true)
  .map((n) => optionLabel(n))
  .join(', ')} (order-loader help tells more).`;

/** Each command's own usage: what it does, its options, its exit codes. */
function commandUsage(command: Command): string {
  const { synopsis, about, options = [], exitCodes } = COMMAND_TABLE[command].usage;
  return [`Usage: order-loader ${synopsis}`, '', about, ...options.map(optionRow), ...(exitCodes === undefined ? [] : [exitCodes])].join(
    '\n',
  );
}

/** The usage of one command, or of all (null). */
export function usageFor(command: Command | null): string {
  return command === null ? USAGE : `${commandUsage(command)}\n${COMMON_OPTIONS}`;
}
