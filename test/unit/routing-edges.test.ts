/**
 * Inbox routing by profile (src/input/profile/routing.ts), beside profile-routing.test.ts: the
 * folder read in code-point order, a path that is no folder, a dangling profile link, and the
 * messages that list many profiles or one file matched twice.
 */
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';
import { loadProfileFolder, profileMatches, routeFiles } from '../../src/input/profile/routing.js';
import { tempDir, writeTestFile } from '../support/files.js';

const EU = readFileSync('examples/profiles/eu-erp.yaml', 'utf8');
/** The EU example under another name and match. */
const named = (name: string, match: string | null): string =>
  EU.replace('name: eu-erp', `name: ${name}`).replace("match: 'EU_ORDERS_*.csv*'\n", match === null ? '' : `match: '${match}'\n`);
const profile = (name: string, match: string | null): LoadProfile => parseProfileText(named(name, match), `${name}.yaml`, name);

function refusal(run: () => unknown): { message: string; cause: unknown } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return { message: (error as Error).message, cause: (error as Error).cause };
  }
  throw new Error('accepted');
}

describe('a --profiles folder: edges', () => {
  it('its profiles in code-point order of their file names (upper case before lower, "a-.yaml" before "a.yaml"), whatever order they were written in', () => {
    const dir = tempDir();
    const names = ['b', 'B', 'a', '_x', '9', 'Z', 'aa', 'a-'];
    for (const [i, n] of names.entries()) writeFileSync(join(dir, `${n}.yaml`), named(`p${i}`, `${n}_*.csv`));
    expect(loadProfileFolder(dir).map((p) => p.source)).toEqual(
      ['9', 'B', 'Z', '_x', 'a-', 'a', 'aa', 'b'].map((n) => join(dir, `${n}.yaml`)),
    );
  });

  it('a path that is a file: "not a folder", with the cause', () => {
    const file = writeTestFile('x', 'p.yaml');
    const { message, cause } = refusal(() => loadProfileFolder(file));
    expect(message).toBe(`--profiles ${file}: not a folder`);
    expect(cause).toMatchObject({ code: 'ENOTDIR' });
    const missing = join(tempDir(), 'none');
    expect(refusal(() => loadProfileFolder(missing)).cause).toMatchObject({ code: 'ENOENT' });
  });

  it('a profile link to nothing is refused as a missing profile file, not passed over', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.yaml'), named('a', 'A_*.csv'));
    symlinkSync(join(dir, 'gone.yaml'), join(dir, 'b.yaml'));
    expect(refusal(() => loadProfileFolder(dir)).message).toBe(`profile ${join(dir, 'b.yaml')}: no such file`);
  });
});

describe('routing: the messages', () => {
  it('a file no profile matches: the patterns tried, the first ten and how many more', () => {
    const ten = Array.from({ length: 10 }, (_, i) => profile(`p${i}`, `P${i}_*.csv`));
    const tried = ten.map((p) => `${p.name}: ${p.spec.match ?? ''}`).join(', ');
    expect(routeFiles(['in/x.csv'], ten).unmatched).toEqual([{ file: 'in/x.csv', reason: `no load profile matches its name (${tried})` }]);
    const twelve = [...ten, profile('p10', 'P10_*.csv'), profile('p11', 'P11_*.csv')];
    expect(routeFiles(['in/x.csv'], twelve).unmatched[0]?.reason).toBe(`no load profile matches its name (${tried}, and 2 more)`);
    // a profile without match (given here without the folder's check): shown with "-", matching nothing
    const loose = profile('loose', null);
    expect(profileMatches(loose, 'x.csv')).toBe(false);
    expect(routeFiles(['x.csv'], [loose]).unmatched[0]?.reason).toBe('no load profile matches its name (loose: -)');
  });

  it('one file two profiles match: named with both, no count of more', () => {
    const a = { ...profile('a', '*.csv'), source: 'profiles/a.yaml' };
    const b = { ...profile('b', 'x*'), source: 'profiles/b.yaml' };
    expect(refusal(() => routeFiles(['in/y.csv', 'in/x.csv'], [a, b])).message).toBe(
      'in/x.csv: two load profiles match its name, profiles/a.yaml (match: *.csv) and profiles/b.yaml (match: x*): make their match: patterns take different files; nothing was read',
    );
    // a profile known by its name only (no source)
    const c = profile('c', 'x*');
    expect(refusal(() => routeFiles(['in/x.csv'], [a, c])).message).toMatch(
      /^in\/x\.csv: two load profiles match its name, profiles\/a\.yaml \(match: \*\.csv\) and c \(match: x\*\)/,
    );
    // the same profile asked again gives the same answer (its pattern compiled once)
    expect([profileMatches(b, 'x1'), profileMatches(b, 'x2'), profileMatches(b, 'y')]).toEqual([true, true, false]);
  });
});
