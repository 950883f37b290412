/**
 * Inbox routing by profile (`--profiles`), without a database: a folder's profiles
 * read and checked in file-name order, each refusal one line (file, key path, YAML line), and
 * each file's profile picked by its name; a name two profiles match refuses the run.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { UserError } from '../../src/errors.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';
import { checkRoutingProfiles, loadProfileFolder, profileMatches, routeFiles } from '../../src/input/profile/routing.js';
import { tempDir } from '../support/files.js';

const EU = readFileSync('examples/profiles/eu-erp.yaml', 'utf8');
const LEGACY = readFileSync('examples/profiles/headerless.yaml', 'utf8');
const MAINFRAME = readFileSync('examples/profiles/mainframe-sjis.yaml', 'utf8');

function folder(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    return message;
  }
  throw new Error('accepted');
}

describe('a --profiles folder', () => {
  test('its *.yaml, *.yml and *.json profiles, in file-name order; other files, hidden files and folders left alone', () => {
    const dir = folder({
      'b-legacy.yml': LEGACY,
      'a-eu.yaml': EU,
      'c-mainframe.json': JSON.stringify({ ...(parseProfileText(MAINFRAME, 'm', 'm').spec as object) }),
      'README.md': '# not a profile',
      '.hidden.yaml': 'not: [a profile',
      'old.yaml.bak': 'not: [a profile',
    });
    mkdirSync(join(dir, 'drafts.yaml'));
    const profiles = loadProfileFolder(dir);
    expect(profiles.map((p) => [p.name, p.spec.match, p.source])).toEqual([
      ['eu-erp', 'EU_ORDERS_*.csv*', join(dir, 'a-eu.yaml')],
      ['legacy-jp', 'JP_LEGACY_*.csv*', join(dir, 'b-legacy.yml')],
      ['mainframe-sjis', 'MF_ORDERS_*.dat*', join(dir, 'c-mainframe.json')],
    ]);
  });

  test('a bad profile refuses all in one line naming its file, the key path and the YAML line; so do a missing match and a shared name', () => {
    const bad = folder({ 'a.yaml': EU, 'b.yaml': LEGACY.replace("prefix: 'LG-'", "prefix: 'LG-', colour: red") });
    expect(refusal(() => loadProfileFolder(bad))).toBe(`profile ${join(bad, 'b.yaml')}: columns.source_key.colour: unknown key (line 8)`);
    const slash = folder({ 'a.yaml': EU.replace("match: 'EU_ORDERS_*.csv*'", "match: 'inbox/EU_*.csv'") });
    expect(refusal(() => loadProfileFolder(slash))).toBe(
      `profile ${join(slash, 'a.yaml')}: match: a file-name pattern (* and ?) without a folder: it is matched against the name (line 5)`,
    );
    const noMatch = folder({ 'a.yaml': EU, 'b.yaml': LEGACY.replace("match: 'JP_LEGACY_*.csv*'\n", '') });
    expect(refusal(() => loadProfileFolder(noMatch))).toBe(
      `profile ${join(noMatch, 'b.yaml')}: match: missing: each profile of --profiles says which file names it reads (such as match: "EU_ORDERS_*.csv*")`,
    );
    const twins = folder({ 'a.yaml': EU, 'b.yaml': EU.replace("match: 'EU_ORDERS_*.csv*'", "match: 'EU2_*.csv'") });
    expect(refusal(() => loadProfileFolder(twins))).toBe(
      `profiles ${join(twins, 'a.yaml')} and ${join(twins, 'b.yaml')} are both named eu-erp: reports and metrics tell files apart by a profile's name (give one another name:)`,
    );
    expect(refusal(() => loadProfileFolder(folder({ 'notes.txt': 'x' })))).toMatch(
      /^--profiles .*: no load profile in it \(\*\.yaml, \*\.yml or \*\.json\)$/,
    );
    expect(refusal(() => loadProfileFolder(join(tempDir(), 'none')))).toMatch(/^--profiles .*none: no such folder$/);
    expect(refusal(() => checkRoutingProfiles([]))).toMatch(/no load profile/);
  });
});

describe('routing files by name', () => {
  const profiles = [parseProfileText(EU, 'eu.yaml', 'eu'), parseProfileText(LEGACY, 'legacy.yaml', 'legacy')];

  test('a glob on the whole file name: * and ?, case-sensitive; a gzip name by a pattern that takes it', () => {
    const [eu] = profiles;
    expect(profileMatches(eu!, 'EU_ORDERS_20261201.csv')).toBe(true);
    expect(profileMatches(eu!, 'EU_ORDERS_20261201.csv.gz')).toBe(true);
    expect(profileMatches(eu!, 'eu_orders_20261201.csv')).toBe(false);
    expect(profileMatches(eu!, 'X_EU_ORDERS_1.csv')).toBe(false);
    const plain = parseProfileText(EU.replace("'EU_ORDERS_*.csv*'", "'EU_ORDERS_????????.csv'"), 'p', 'p');
    expect(profileMatches(plain, 'EU_ORDERS_20261201.csv')).toBe(true);
    expect(profileMatches(plain, 'EU_ORDERS_20261201.csv.gz')).toBe(false);
    expect(profileMatches(plain, 'EU_ORDERS_2026120.csv')).toBe(false);
    // regular-expression characters in a name are themselves
    const dotted = parseProfileText(EU.replace("'EU_ORDERS_*.csv*'", "'a+b(1).csv'"), 'p', 'p');
    expect(profileMatches(dotted, 'a+b(1).csv')).toBe(true);
    expect(profileMatches(dotted, 'aab(1)xcsv')).toBe(false);
  });

  test("each file's profile by its name; the files none matches apart, with the patterns tried", () => {
    const { routes, unmatched } = routeFiles(
      ['in/EU_ORDERS_1.csv', 'in/JP_LEGACY_1.csv.gz', 'in/orders.csv', 'in/EU_ORDERS_2.csv.gz'],
      profiles,
    );
    expect([...routes].map(([file, p]) => [file, p.name])).toEqual([
      ['in/EU_ORDERS_1.csv', 'eu-erp'],
      ['in/JP_LEGACY_1.csv.gz', 'legacy-jp'],
      ['in/EU_ORDERS_2.csv.gz', 'eu-erp'],
    ]);
    expect(unmatched).toEqual([
      { file: 'in/orders.csv', reason: 'no load profile matches its name (eu-erp: EU_ORDERS_*.csv*, legacy-jp: JP_LEGACY_*.csv*)' },
    ]);
  });

  test('a file two profiles match refuses the run, naming the file and both profiles', () => {
    const wide = { ...parseProfileText(LEGACY.replace("'JP_LEGACY_*.csv*'", "'*.csv'"), 'x', 'x'), source: 'profiles/all-csv.yaml' };
    const eu = { ...profiles[0]!, source: 'profiles/eu.yaml' };
    expect(refusal(() => routeFiles(['in/a.txt', 'in/EU_ORDERS_1.csv', 'in/EU_ORDERS_2.csv'], [eu, wide]))).toBe(
      'in/EU_ORDERS_1.csv: two load profiles match its name, profiles/eu.yaml (match: EU_ORDERS_*.csv*) and profiles/all-csv.yaml (match: *.csv) (and 1 more file(s)): make their match: patterns take different files; nothing was read',
    );
  });
});
