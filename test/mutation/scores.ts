/**
 * The mutation scores of the rule modules as committed (a group's scores.json), and the check
 * that CI can afford (StrykerJS itself takes minutes to hours): every mutated module has a score
 * measured on its current source and on the current text of the tests that covered or killed its
 * mutants, and that score reaches its floor (the group's floors.json). A score measured on
 * another text is stale: it is not compared with its floor, and the check warns, naming the
 * modules and the command that measures them again, without failing (a StrykerJS run costs
 * minutes to hours: intermediate commits land, the score is measured before the work is closed).
 *
 * The modules are measured in groups (GROUPS): each its own StrykerJS configuration, test list,
 * incremental file, scores and floors, so that a test file added to one group's list stales the
 * scores of that group only.
 *
 * Pure functions over texts; the files are read by record.check.ts (after a run) and
 * floor.check.ts (the check). Tested in test/unit/mutation-scores.test.ts.
 */
import { createHash } from 'node:crypto';

/** What this code reads of StrykerJS's report (mutation-testing-report-schema, also its incremental file). */
export interface StrykerReport {
  files: Record<string, { source: string; mutants: Array<{ status: string; coveredBy?: string[]; killedBy?: string[] }> }>;
  testFiles?: Record<string, { source?: string; tests: Array<{ id: string }> }>;
  /** The options of the run that wrote the report: `mutate` is the run's scope (a `--mutate` on the command line replaces the config's). */
  config?: { mutate?: string[] };
}

export interface ModuleScore {
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  /** Mutants the TypeScript checker refused (and runtime errors): not counted in the score. */
  invalid: number;
  /** (killed + timeout) / (killed + timeout + survived + no coverage), in %: Stryker's own mutation score. */
  score: number;
}

export interface ModuleEntry extends ModuleScore {
  /** When the run that measured it ended (the time the scores were recorded after it). */
  measured: string;
  /** sha256 of the module's source as StrykerJS mutated it. */
  sha256: string;
  /**
   * sha256 of each test file whose tests covered or killed its mutants, as StrykerJS ran them,
   * and of the group's test list (its `vitest.configFile`: which test files run at all).
   */
  tests: Record<string, string>;
}

export interface ScoresFile {
  modules: Record<string, ModuleEntry>;
}

export interface Floors {
  modules: Record<string, number>;
}

/** What this code reads of a StrykerJS configuration file (stryker.config.json). */
export interface StrykerConfig {
  mutate: string[];
  /** The test list: the vitest configuration StrykerJS runs the tests with (a test file taken out of it lowers scores). */
  vitest: { configFile: string };
  incrementalFile: string;
}

/** A set of modules measured together: one StrykerJS configuration, one test list, its own scores and floors. */
export interface MutationGroup {
  /** `npm run test:mutation:<name>` measures it; `--mode record:<name>` records it (floor.config.ts). */
  name: string;
  /** The StrykerJS configuration: its `mutate`, its test list and its incremental file. */
  config: string;
  scores: string;
  floors: string;
}

export const GROUPS: readonly MutationGroup[] = [
  { name: 'rules', config: 'stryker.config.json', scores: 'test/mutation/scores.json', floors: 'test/mutation/floors.json' },
  {
    name: 'reader',
    config: 'stryker.reader.config.json',
    scores: 'test/mutation/reader/scores.json',
    floors: 'test/mutation/reader/floors.json',
  },
  {
    name: 'profile',
    config: 'stryker.profile.config.json',
    scores: 'test/mutation/profile/scores.json',
    floors: 'test/mutation/profile/floors.json',
  },
  {
    name: 'file',
    config: 'stryker.file.config.json',
    scores: 'test/mutation/file/scores.json',
    floors: 'test/mutation/file/floors.json',
  },
  {
    name: 'fixed',
    config: 'stryker.fixed.config.json',
    scores: 'test/mutation/fixed/scores.json',
    floors: 'test/mutation/fixed/floors.json',
  },
  {
    name: 'formats',
    config: 'stryker.formats.config.json',
    scores: 'test/mutation/formats/scores.json',
    floors: 'test/mutation/formats/floors.json',
  },
  {
    name: 'reader-io',
    config: 'stryker.reader-io.config.json',
    scores: 'test/mutation/reader-io/scores.json',
    floors: 'test/mutation/reader-io/floors.json',
  },
  {
    name: 'delimited',
    config: 'stryker.delimited.config.json',
    scores: 'test/mutation/delimited/scores.json',
    floors: 'test/mutation/delimited/floors.json',
  },
  {
    name: 'xlsx',
    config: 'stryker.xlsx.config.json',
    scores: 'test/mutation/xlsx/scores.json',
    floors: 'test/mutation/xlsx/floors.json',
  },
  {
    name: 'profile-forms',
    config: 'stryker.profile-forms.config.json',
    scores: 'test/mutation/profile-forms/scores.json',
    floors: 'test/mutation/profile-forms/floors.json',
  },
];

/** The command that records a group's scores after its StrykerJS run (`rules`: the first group, as before groups). */
export const recordCommand = (group: MutationGroup): string =>
  `npm run test:mutation:record${group.name === 'rules' ? '' : `:${group.name}`}`;

/** The command that measures a group again and records its scores. */
export const rerun = (group: MutationGroup): string => `npm run test:mutation:${group.name}`;

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function countMutants(mutants: ReadonlyArray<{ status: string }>): ModuleScore {
  const count = (...statuses: string[]) => mutants.filter((m) => statuses.includes(m.status)).length;
  const killed = count('Killed');
  const timeout = count('Timeout');
  const survived = count('Survived');
  const noCoverage = count('NoCoverage');
  const invalid = count('CompileError', 'RuntimeError');
  const valid = killed + timeout + survived + noCoverage;
  return { killed, timeout, survived, noCoverage, invalid, score: valid === 0 ? 100 : (100 * (killed + timeout)) / valid };
}

/**
 * A `mutate` pattern as a matcher of whole files: `**` (any folders), `*` (any name part) and
 * literal text. Null for a pattern with a line range (`file.ts:10-20`): such a run measures part
 * of a file only.
 */
export function patternMatcher(pattern: string): RegExp | null {
  if (/:\d+(:\d+)?-\d+(:\d+)?$/.test(pattern)) return null;
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] ?? '';
    if (pattern.startsWith('**/', i)) {
      re += '(?:[^/]+/)*';
      i += 2;
    } else if (pattern.startsWith('**', i)) {
      re += '.*';
      i += 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Whether a file is wholly in the scope of `mutate` patterns (a leading `!` excludes). */
export function inScope(file: string, patterns: readonly string[]): boolean {
  let included = false;
  for (const pattern of patterns) {
    const negated = pattern.startsWith('!');
    const matcher = patternMatcher(negated ? pattern.slice(1) : pattern);
    if (matcher?.test(file) === true) included = !negated;
  }
  return included;
}

/**
 * The scores after a run, from its report: the modules in the run's scope measured anew; every
 * other module keeps its previous entry (StrykerJS carries their old results over, and drops the
 * mutants of any code that changed since: a module's entry is only ever made by a run that
 * mutated it whole). `runner` is the group's test list (`vitest.configFile`) and its text now.
 */
export function recordScores(
  report: StrykerReport,
  previous: ScoresFile,
  runner: { path: string; text: string },
  now: Date,
): { scores: ScoresFile; measured: string[] } {
  const scope = report.config?.mutate ?? [];
  const fileOfTest = new Map<string, string>();
  for (const [file, tests] of Object.entries(report.testFiles ?? {})) for (const t of tests.tests) fileOfTest.set(t.id, file);
  const modules: Record<string, ModuleEntry> = { ...previous.modules };
  const measured: string[] = [];
  for (const [module, file] of Object.entries(report.files)) {
    if (!inScope(module, scope)) continue;
    const tests: Record<string, string> = { [runner.path]: sha256(runner.text) };
    for (const m of file.mutants)
      for (const id of [...(m.coveredBy ?? []), ...(m.killedBy ?? [])]) {
        const testFile = fileOfTest.get(id);
        const source = testFile === undefined ? undefined : report.testFiles?.[testFile]?.source;
        if (testFile !== undefined && source !== undefined) tests[testFile] = sha256(source);
      }
    modules[module] = {
      ...countMutants(file.mutants),
      measured: now.toISOString(),
      sha256: sha256(file.source),
      tests: Object.fromEntries(Object.entries(tests).sort(([a], [b]) => a.localeCompare(b))),
    };
    measured.push(module);
  }
  const sorted = Object.fromEntries(Object.entries(modules).sort(([a], [b]) => a.localeCompare(b)));
  return { scores: { modules: sorted }, measured: measured.sort() };
}

/** A score measured on another text than the current one: warned about, not a failure. */
export interface StaleScore {
  module: string;
  /** When it was measured (ISO time). */
  measured: string;
  /** The files (the module, a test that reached it, the test list) that changed or are gone since. */
  changed: string[];
  /** Its floor, when the stale score is below it (it may be met or not once measured again). */
  belowFloor?: number;
}

/** What the floor check found in one group: failures (one line each) and stale scores. */
export interface ScoreCheck {
  failures: string[];
  stale: StaleScore[];
}

/**
 * What is wrong with a group's committed scores. `failures`, one line each, fail the check: a
 * module never measured, without a floor, or whose current score is below its floor, and a floor
 * of a module not mutated. `stale`: scores measured on another text of the module, of a test
 * that reached it or of the group's test list; they are not compared with their floors.
 * `mutated`: the modules StrykerJS mutates (the group's `mutate` over the source files); `read`:
 * a file's current text, or undefined when it is gone.
 */
export function checkScores(
  group: MutationGroup,
  scores: ScoresFile,
  floors: Floors,
  mutated: readonly string[],
  read: (path: string) => string | undefined,
): ScoreCheck {
  const failures: string[] = [];
  const stale: StaleScore[] = [];
  for (const module of mutated) {
    const entry = scores.modules[module];
    const floor = floors.modules[module];
    if (entry === undefined) {
      failures.push(`${module}: never measured: run npx stryker run ${group.config} --mutate ${module} && ${recordCommand(group)}`);
      continue;
    }
    if (floor === undefined) failures.push(`${module}: no floor in ${group.floors} (measured ${entry.score.toFixed(1)} %)`);
    const changed = changedSince(module, entry, read);
    if (changed.length > 0)
      stale.push({
        module,
        measured: entry.measured,
        changed,
        ...(floor !== undefined && entry.score < floor ? { belowFloor: floor } : {}),
      });
    else if (floor !== undefined && entry.score < floor)
      failures.push(`${module}: mutation score ${entry.score.toFixed(1)} % is below its floor ${floor} %`);
  }
  for (const module of Object.keys(floors.modules))
    if (!mutated.includes(module)) failures.push(`${module}: has a floor but is not mutated (${group.config} mutate)`);
  return { failures, stale };
}

/** The files whose text differs from the one the module's score was measured on (or that are gone). */
function changedSince(module: string, entry: ModuleEntry, read: (path: string) => string | undefined): string[] {
  const differs = (path: string, hash: string) => {
    const text = read(path);
    return text === undefined || sha256(text) !== hash;
  };
  return [
    ...(differs(module, entry.sha256) ? [module] : []),
    ...Object.entries(entry.tests)
      .filter(([f, h]) => differs(f, h))
      .map(([f]) => f),
  ];
}

/**
 * The warning for a group's stale scores (empty: none): each module with what changed, then the
 * command that measures the group again and records it, and the one that measures only these.
 */
export function staleWarning(group: MutationGroup, stale: readonly StaleScore[]): string {
  if (stale.length === 0) return '';
  const modules = stale.map((s) => s.module);
  return [
    `WARNING: ${stale.length} stale mutation score${stale.length === 1 ? '' : 's'} in group ${group.name} (not a failure; not compared with the floors until measured again):`,
    ...stale.map(
      (s) =>
        `  ${s.module}: measured ${s.measured.slice(0, 10)}, changed since: ${s.changed.join(', ')}` +
        (s.belowFloor === undefined ? '' : ` (that score was below its floor ${s.belowFloor} %)`),
    ),
    `  measure them: ${rerun(group)}`,
    `  (only these: npx stryker run ${group.config} --mutate ${modules.join(',')} && ${recordCommand(group)})`,
  ].join('\n');
}

/** Modules that more than one group mutates (each module is measured by one group only). */
export function mutatedTwice(mutatedByGroup: ReadonlyMap<string, readonly string[]>): string[] {
  const groupsOf = new Map<string, string[]>();
  for (const [group, modules] of mutatedByGroup) for (const m of modules) groupsOf.set(m, [...(groupsOf.get(m) ?? []), group]);
  return [...groupsOf]
    .filter(([, groups]) => groups.length > 1)
    .map(([module, groups]) => `${module}: mutated by more than one group (${groups.join(', ')}): name it in one mutate list`);
}

/** The score table of docs/mutation.md. */
export function scoreTable(scores: ScoresFile, floors: Floors, modules: readonly string[]): string {
  const rows = modules.map((module) => {
    const e = scores.modules[module];
    if (e === undefined) return `| \`${module}\` | – | – | – | – | not measured | ${floors.modules[module] ?? '–'} |`;
    return `| \`${module}\` | ${e.killed} (+${e.timeout}) | ${e.survived} | ${e.noCoverage} | ${e.invalid} | ${e.score.toFixed(1)} % | ${floors.modules[module] ?? '–'} |`;
  });
  return [
    '| module | killed (+ timeout) | survived | no coverage | compile errors | score | floor |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ]
    .concat(rows)
    .join('\n');
}
