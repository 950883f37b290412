import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  checkScores,
  GROUPS,
  inScope,
  mutatedTwice,
  recordScores,
  sha256,
  staleWarning,
  type Floors,
  type MutationGroup,
  type ScoresFile,
  type StrykerConfig,
  type StrykerReport,
} from '../../test/mutation/scores.js';

type StrykerGroupConfig = StrykerConfig & { jsonReporter: { fileName: string }; htmlReporter: { fileName: string } };

const RUNNER_CONFIG = 'test/mutation/vitest.config.ts';
const GROUP: MutationGroup = { name: 'rules', config: 'stryker.config.json', scores: 'scores.json', floors: 'floors.json' };

const RULE = 'export const rule = (a: number) => a > 1;\n';
const OTHER = 'export const other = 1;\n';
const TEST = "it('rule', () => expect(rule(2)).toBe(true));\n";
const CONFIG = "export default { include: ['test/unit/rule.test.ts'] };\n";

/** A run that mutated src/rule.ts only: three mutants, one killed by test/unit/rule.test.ts. */
const report = (mutate: string[], source = RULE): StrykerReport => ({
  config: { mutate },
  files: {
    'src/rule.ts': {
      source,
      mutants: [
        { status: 'Killed', coveredBy: ['1'], killedBy: ['1'] },
        { status: 'Survived', coveredBy: ['1'] },
        { status: 'CompileError' },
        { status: 'Timeout', coveredBy: ['2'] },
      ],
    },
    // carried over by StrykerJS from an earlier run: not in this run's scope
    'src/other.ts': { source: OTHER, mutants: [{ status: 'Killed', killedBy: ['2'] }] },
  },
  testFiles: {
    'test/unit/rule.test.ts': { source: TEST, tests: [{ id: '1' }] },
    'test/unit/other.test.ts': { source: 'other', tests: [{ id: '2' }] },
  },
});

const files: Record<string, string> = {
  'src/rule.ts': RULE,
  'src/other.ts': OTHER,
  'test/unit/rule.test.ts': TEST,
  'test/unit/other.test.ts': 'other',
  [RUNNER_CONFIG]: CONFIG,
};
const reader =
  (changes: Record<string, string | undefined> = {}) =>
  (path: string): string | undefined =>
    path in changes ? changes[path] : files[path];
const NOW = new Date('2026-12-02T01:00:00Z');
const RUNNER = { path: RUNNER_CONFIG, text: CONFIG };
const recorded = recordScores(report(['src/rule.ts']), { modules: {} }, RUNNER, NOW).scores;

describe('recording the scores of a StrykerJS run', () => {
  it('measures the modules of the run’s scope, with the hashes of their source and of the tests that reached them', () => {
    expect(recorded.modules['src/rule.ts']).toEqual({
      killed: 1,
      timeout: 1,
      survived: 1,
      noCoverage: 0,
      invalid: 1,
      score: (100 * 2) / 3,
      measured: '2026-12-02T01:00:00.000Z',
      sha256: sha256(RULE),
      tests: { [RUNNER_CONFIG]: sha256(CONFIG), 'test/unit/other.test.ts': sha256('other'), 'test/unit/rule.test.ts': sha256(TEST) },
    });
  });

  it('never makes or changes an entry from results StrykerJS only carried over (a module outside the run’s scope)', () => {
    expect(Object.keys(recorded.modules)).toEqual(['src/rule.ts']);
    const earlier: ScoresFile = { modules: { 'src/other.ts': { ...recorded.modules['src/rule.ts']!, score: 12, sha256: 'old' } } };
    const again = recordScores(report(['src/rule.ts']), earlier, RUNNER, NOW).scores;
    expect(again.modules['src/other.ts']).toEqual(earlier.modules['src/other.ts']);
    // a run over a line range measured part of a file only
    expect(recordScores(report(['src/rule.ts:1-2']), { modules: {} }, RUNNER, NOW).measured).toEqual([]);
    expect(recordScores(report(['src/**/*.ts']), { modules: {} }, RUNNER, NOW).measured).toEqual(['src/other.ts', 'src/rule.ts']);
  });
});

describe('the floor check over the committed scores', () => {
  const floors = { modules: { 'src/rule.ts': 60 } };
  const failures = (f: Floors, mutated: string[], changes: Record<string, string | undefined> = {}) =>
    checkScores(GROUP, recorded, f, mutated, reader(changes)).failures;

  it('passes on a current score at or above its floor', () => {
    expect(checkScores(GROUP, recorded, floors, ['src/rule.ts'], reader())).toEqual({ failures: [], stale: [] });
  });

  it('fails on a score below its floor, a module without a floor, a floor of a module not mutated', () => {
    expect(failures({ modules: { 'src/rule.ts': 67 } }, ['src/rule.ts'])).toEqual([
      'src/rule.ts: mutation score 66.7 % is below its floor 67 %',
    ]);
    expect(failures({ modules: {} }, ['src/rule.ts'])).toEqual(['src/rule.ts: no floor in floors.json (measured 66.7 %)']);
    expect(failures({ modules: { ...floors.modules, 'src/gone.ts': 80 } }, ['src/rule.ts'])).toEqual([
      'src/gone.ts: has a floor but is not mutated (stryker.config.json mutate)',
    ]);
  });

  it('fails on a mutated module never measured', () => {
    expect(failures(floors, ['src/rule.ts', 'src/new.ts'])).toEqual([
      'src/new.ts: never measured: run npx stryker run stryker.config.json --mutate src/new.ts && npm run test:mutation:record',
    ]);
  });

  it('a stale score (the source, a test that reached it, or the test list changed) is not a failure but a stale entry', () => {
    const check = (changes: Record<string, string | undefined>) => checkScores(GROUP, recorded, floors, ['src/rule.ts'], reader(changes));
    const staleOn = (...changed: string[]) => ({
      failures: [],
      stale: [{ module: 'src/rule.ts', measured: '2026-12-02T01:00:00.000Z', changed }],
    });
    expect(check({ 'src/rule.ts': RULE.replace('>', '>=') })).toEqual(staleOn('src/rule.ts'));
    expect(check({ 'test/unit/rule.test.ts': TEST.replace('toBe(true)', 'toBeDefined()') })).toEqual(staleOn('test/unit/rule.test.ts'));
    expect(check({ 'test/unit/rule.test.ts': undefined })).toEqual(staleOn('test/unit/rule.test.ts'));
    expect(check({ [RUNNER_CONFIG]: 'export default { include: [] };\n' })).toEqual(staleOn(RUNNER_CONFIG));
    expect(check({ 'src/rule.ts': undefined, 'test/unit/other.test.ts': 'changed' })).toEqual(
      staleOn('src/rule.ts', 'test/unit/other.test.ts'),
    );
  });

  it('a stale score is not compared with its floor (said in the warning); a stale module without a floor still fails', () => {
    const changed = { 'src/rule.ts': RULE.replace('>', '>=') };
    const high = { modules: { 'src/rule.ts': 67 } };
    expect(checkScores(GROUP, recorded, high, ['src/rule.ts'], reader(changed))).toEqual({
      failures: [],
      stale: [{ module: 'src/rule.ts', measured: '2026-12-02T01:00:00.000Z', changed: ['src/rule.ts'], belowFloor: 67 }],
    });
    expect(failures({ modules: {} }, ['src/rule.ts'], changed)).toEqual(['src/rule.ts: no floor in floors.json (measured 66.7 %)']);
    // the other failures stay failures beside a stale score
    expect(failures({ modules: { ...floors.modules, 'src/gone.ts': 80 } }, ['src/rule.ts', 'src/new.ts'], changed)).toEqual([
      'src/new.ts: never measured: run npx stryker run stryker.config.json --mutate src/new.ts && npm run test:mutation:record',
      'src/gone.ts: has a floor but is not mutated (stryker.config.json mutate)',
    ]);
  });

  it('the warning names every stale module, what changed, and the commands that measure them again', () => {
    const readerGroup: MutationGroup = { name: 'reader', config: 'stryker.reader.config.json', scores: 's.json', floors: 'f.json' };
    expect(staleWarning(readerGroup, [])).toBe('');
    expect(
      staleWarning(readerGroup, [
        { module: 'src/a.ts', measured: '2026-12-02T01:00:00.000Z', changed: ['src/a.ts', 'test/unit/a.test.ts'] },
        { module: 'src/b.ts', measured: '2026-11-30T10:00:00.000Z', changed: ['test/unit/b.test.ts'], belowFloor: 90 },
      ]).split('\n'),
    ).toEqual([
      'WARNING: 2 stale mutation scores in group reader (not a failure; not compared with the floors until measured again):',
      '  src/a.ts: measured 2026-12-02, changed since: src/a.ts, test/unit/a.test.ts',
      '  src/b.ts: measured 2026-11-30, changed since: test/unit/b.test.ts (that score was below its floor 90 %)',
      '  measure them: npm run test:mutation:reader',
      '  (only these: npx stryker run stryker.reader.config.json --mutate src/a.ts,src/b.ts && npm run test:mutation:record:reader)',
    ]);
    expect(staleWarning(GROUP, [{ module: 'src/rule.ts', measured: '2026-12-02T01:00:00.000Z', changed: ['src/rule.ts'] }])).toContain(
      'stale mutation score in group rules',
    );
  });
});

describe('groups of modules, each with its own StrykerJS configuration and test list', () => {
  const READER_RUNNER = 'test/mutation/reader/vitest.config.ts';
  const readerGroup: MutationGroup = { name: 'reader', config: 'stryker.reader.config.json', scores: 's.json', floors: 'f.json' };
  const inReader = recordScores(report(['src/rule.ts']), { modules: {} }, { path: READER_RUNNER, text: CONFIG }, NOW).scores;
  const withReaderList = (changes: Record<string, string | undefined>) =>
    checkScores(
      readerGroup,
      inReader,
      { modules: { 'src/rule.ts': 60 } },
      ['src/rule.ts'],
      reader({ [READER_RUNNER]: CONFIG, ...changes }),
    );

  it('a score is stale when its own group’s test list changes, not when another group’s does', () => {
    expect(inReader.modules['src/rule.ts']?.tests).toHaveProperty([READER_RUNNER], sha256(CONFIG));
    expect(inReader.modules['src/rule.ts']?.tests).not.toHaveProperty([RUNNER_CONFIG]);
    expect(withReaderList({ [RUNNER_CONFIG]: 'export default { include: [] };\n' })).toEqual({ failures: [], stale: [] });
    expect(withReaderList({ [READER_RUNNER]: 'export default { include: [] };\n' })).toEqual({
      failures: [],
      stale: [{ module: 'src/rule.ts', measured: '2026-12-02T01:00:00.000Z', changed: [READER_RUNNER] }],
    });
    expect(checkScores(readerGroup, inReader, { modules: {} }, ['src/new.ts'], reader()).failures).toEqual([
      'src/new.ts: never measured: run npx stryker run stryker.reader.config.json --mutate src/new.ts && npm run test:mutation:record:reader',
    ]);
  });

  it('a module mutated by two groups fails', () => {
    const mutated = new Map([
      ['rules', ['src/a.ts', 'src/b.ts']],
      ['reader', ['src/b.ts', 'src/c.ts']],
    ]);
    expect(mutatedTwice(mutated)).toEqual(['src/b.ts: mutated by more than one group (rules, reader): name it in one mutate list']);
  });

  it('the committed groups keep apart their test lists, incremental files, reports, scores and floors', () => {
    const configs = GROUPS.map(
      (g) => JSON.parse(readFileSync(new URL(`../../${g.config}`, import.meta.url), 'utf8')) as StrykerGroupConfig,
    );
    const distinct = (values: string[]) => expect(new Set(values).size).toBe(GROUPS.length);
    distinct(GROUPS.map((g) => g.name));
    distinct(GROUPS.map((g) => g.scores));
    distinct(GROUPS.map((g) => g.floors));
    distinct(configs.map((c) => c.vitest.configFile));
    distinct(configs.map((c) => c.incrementalFile));
    distinct(configs.map((c) => c.jsonReporter.fileName));
    distinct(configs.map((c) => c.htmlReporter.fileName));
  });
});

describe('the scope of mutate patterns', () => {
  it('reads **, * and literal paths; a leading ! excludes; a line range is not a whole file', () => {
    const mutate = ['src/input/**/*.ts', 'src/engine/*/classify.ts', 'src/pipeline/outcome.ts', '!src/input/guess/**'];
    expect(inScope('src/input/raw-line.ts', mutate)).toBe(true);
    expect(inScope('src/input/profile/mapping.ts', mutate)).toBe(true);
    expect(inScope('src/input/guess/fields.ts', mutate)).toBe(false);
    expect(inScope('src/engine/postgres/classify.ts', mutate)).toBe(true);
    expect(inScope('src/engine/classify.ts', mutate)).toBe(false);
    expect(inScope('src/pipeline/outcome.ts', mutate)).toBe(true);
    expect(inScope('src/pipeline/outcomeXts', mutate)).toBe(false);
    expect(inScope('src/pipeline/process.ts', mutate)).toBe(false);
    expect(inScope('src/pipeline/outcome.ts', ['src/pipeline/outcome.ts:1-20'])).toBe(false);
  });
});
