/**
 * docs/cli.md is the option table and the commands' usage rendered (src/cli/reference.ts): a
 * change to an option or a command that was not regenerated into the page fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cliReference } from '../../src/cli/reference.js';
import { OPTIONS } from '../../src/cli/option-table.js';
import { COMMANDS } from '../../src/cli/options.js';
import { REPO_ROOT } from '../support/cli-run.js';

describe('docs/cli.md', () => {
  it('is what `npm run docs:cli` renders from the option table and the commands', () => {
    const committed = readFileSync(`${REPO_ROOT}docs/cli.md`, 'utf8');
    // toBe shows the lines that differ; the message says how to mend it
    expect(committed, 'docs/cli.md differs from the option table: run `npm run docs:cli` and commit docs/cli.md').toBe(cliReference());
  });

  it('names every option and every command', () => {
    const page = cliReference();
    for (const name of Object.keys(OPTIONS)) expect(page).toContain(`\`--${name}`);
    for (const command of COMMANDS) expect(page).toContain(`## order-loader ${command}\n`);
  });
});
