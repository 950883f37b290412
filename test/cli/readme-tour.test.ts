/**
 * README.md's tour, run as written: every `$` line of its ```console blocks, in order, in one
 * fresh folder (a copy of the clone's fixtures/ and examples/ beside it, as the tour's first lines expect),
 * each with the exit code and the output the README shows (test/support/doc-commands.ts says how
 * a transcript is read). Followed top to bottom in one folder, each step must get what it
 * promises. Every other command block of the README says why it is not run.
 */
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/files.js';
import { REPO_ROOT } from '../support/cli-run.js';
import { NEEDS, unavailable } from '../support/requirements.js';
import { Transcript, binShim, expectTranscript, pageCommands } from '../support/doc-commands.js';

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const { commands, unrun } = pageCommands(readme, 'README.md');

describe('README.md', () => {
  it('shows the tour, and says why each block it does not run is not run', () => {
    expect(commands.length).toBeGreaterThan(10);
    expect(unrun.filter((b) => b.reason === null)).toEqual([]);
  });

  it.skipIf(unavailable(NEEDS.cli))(
    'the tour: each command as written, in order, in one fresh folder, gets what the README shows',
    async () => {
      const root = tempDir();
      const clone = join(root, 'clone');
      mkdirSync(clone);
      cpSync(join(REPO_ROOT, 'fixtures'), join(clone, 'fixtures'), { recursive: true });
      cpSync(join(REPO_ROOT, 'examples'), join(clone, 'examples'), { recursive: true });
      const transcript = new Transcript(clone, binShim(join(root, 'bin')));
      await expectTranscript(transcript, commands);
    },
    300_000,
  );
});
