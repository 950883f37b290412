/**
 * The commands of each page of docs/, run as written: every `$` line of a page's ```console
 * blocks, in order, in one fresh folder per page holding a copy of the repository's fixtures/,
 * with the exit code and the output the page shows (test/support/doc-commands.ts says how a
 * transcript is read). A block a page does not run (a server, an Oracle, minutes of measuring)
 * must say why. docs/ARCHITECTURE.md describes the code and shows no commands to run.
 */
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/files.js';
import { REPO_ROOT } from '../support/cli-run.js';
import { NEEDS, unavailable } from '../support/requirements.js';
import { Transcript, binShim, expectTranscript, pageCommands } from '../support/doc-commands.js';

const pages = readdirSync(join(REPO_ROOT, 'docs'))
  .filter((f) => f.endsWith('.md') && f !== 'ARCHITECTURE.md')
  .sort();

describe.each(pages)('docs/%s', (page) => {
  const { commands, unrun } = pageCommands(readFileSync(join(REPO_ROOT, 'docs', page), 'utf8'), `docs/${page}`);

  it('says why each command block it does not run is not run', () => {
    expect(unrun.filter((b) => b.reason === null)).toEqual([]);
  });

  it.skipIf(unavailable(NEEDS.cli) || commands.length === 0)(
    'runs its commands as written, in order, with the output it shows',
    async () => {
      const root = tempDir();
      cpSync(join(REPO_ROOT, 'fixtures'), join(root, 'fixtures'), { recursive: true });
      cpSync(join(REPO_ROOT, 'examples'), join(root, 'examples'), { recursive: true });
      const transcript = new Transcript(root, binShim(join(root, '.bin')));
      await expectTranscript(transcript, commands);
    },
    300_000,
  );
});
