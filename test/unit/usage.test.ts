/** The usage texts name every option, and each command's usage every option it takes. */
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandsTaking, OPTIONS, type OptionName } from '../../src/cli/option-table.js';
import { USAGE, usageFor } from '../../src/cli/usage.js';

const names = Object.keys(OPTIONS) as OptionName[];

describe('order-loader help', () => {
  it('lists every option, each at the start of its own line', () => {
    const listed = USAGE.split('\n').flatMap((l) => /^ {2}(--[a-z-]+)/.exec(l)?.[1] ?? []);
    expect(names.map((n) => `--${n}`).filter((n) => !listed.includes(n))).toEqual([]);
  });

  it('says which commands take an option a few commands take', () => {
    const line = (name: string) => USAGE.split('\n').find((l) => l.startsWith(`  --${name} `)) ?? '';
    expect(line('format')).toContain('load, stage, process: text (default) | markdown; errors: csv (default) | excel | json');
    expect(line('reason')).toContain('retry, accept (required), recover');
    expect(line('set')).toContain('retry:');
    expect(line('operator')).toContain('retry, recover, accept, serve:');
  });

  it('describes errors as every rejected line, not only the ERROR rows', () => {
    const errorsLine = USAGE.split('\n').find((l) => l.startsWith('  errors')) ?? '';
    expect(errorsLine).toContain('every rejected line with its latest error');
  });
});

describe("a command's usage", () => {
  it.each(COMMANDS)('%s names every option it takes', (command) => {
    const text = usageFor(command);
    const taken = names.filter((n) => n !== 'help' && n !== 'version' && commandsTaking(n).includes(command));
    expect(taken.filter((n) => !text.includes(`--${n}`))).toEqual([]);
  });
});
