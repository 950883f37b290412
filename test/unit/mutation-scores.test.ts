import { describe, expect, it } from 'vitest';
import {
  checkScores,
  inScope,
  recordScores,
  RUNNER_CONFIG,
  sha256,
  type ScoresFile,
  type StrykerReport,
} from '../../test/mutation/scores.js';

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
const recorded = recordScores(report(['src/rule.ts']), { modules: {} }, CONFIG, NOW).scores;

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
    const again = recordScores(report(['src/rule.ts']), earlier, CONFIG, NOW).scores;
    expect(again.modules['src/other.ts']).toEqual(earlier.modules['src/other.ts']);
    // a run over a line range measured part of a file only
    expect(recordScores(report(['src/rule.ts:1-2']), { modules: {} }, CONFIG, NOW).measured).toEqual([]);
    expect(recordScores(report(['src/**/*.ts']), { modules: {} }, CONFIG, NOW).measured).toEqual(['src/other.ts', 'src/rule.ts']);
  });
});

describe('the floor check over the committed scores', () => {
  const floors = { modules: { 'src/rule.ts': 60 } };

  it('passes on a current score at or above its floor', () => {
    expect(checkScores(recorded, floors, ['src/rule.ts'], reader())).toEqual([]);
  });

  it('fails on a score below its floor, a module without a floor, a floor of a module not mutated', () => {
    expect(checkScores(recorded, { modules: { 'src/rule.ts': 67 } }, ['src/rule.ts'], reader())).toEqual([
      'src/rule.ts: mutation score 66.7 % is below its floor 67 %',
    ]);
    expect(checkScores(recorded, { modules: {} }, ['src/rule.ts'], reader())).toEqual([
      'src/rule.ts: no floor in test/mutation/floors.json (measured 66.7 %)',
    ]);
    expect(checkScores(recorded, { modules: { ...floors.modules, 'src/gone.ts': 80 } }, ['src/rule.ts'], reader())).toEqual([
      'src/gone.ts: has a floor but is not mutated (stryker.config.json mutate)',
    ]);
  });

  it('fails on a mutated module never measured', () => {
    expect(checkScores(recorded, floors, ['src/rule.ts', 'src/new.ts'], reader())).toEqual([
      'src/new.ts: never measured: run npx stryker run --mutate src/new.ts && npm run test:mutation:record',
    ]);
  });

  it('fails on a stale score, even one far above its floor: the source, a test that reached it, or the test list changed', () => {
    const stale = (changes: Record<string, string | undefined>) => checkScores(recorded, floors, ['src/rule.ts'], reader(changes));
    expect(stale({ 'src/rule.ts': RULE.replace('>', '>=') })).toEqual([
      expect.stringMatching(/^src\/rule\.ts: its score \(2026-12-02\) is stale: src\/rule\.ts changed since: run npm run test:mutation /),
    ]);
    expect(stale({ 'test/unit/rule.test.ts': TEST.replace('toBe(true)', 'toBeDefined()') })).toEqual([
      expect.stringContaining('is stale: test/unit/rule.test.ts changed since'),
    ]);
    expect(stale({ 'test/unit/rule.test.ts': undefined })).toEqual([expect.stringContaining('is stale: test/unit/rule.test.ts changed')]);
    expect(stale({ [RUNNER_CONFIG]: 'export default { include: [] };\n' })).toEqual([
      expect.stringContaining(`is stale: ${RUNNER_CONFIG} changed`),
    ]);
    expect(stale({ 'src/rule.ts': undefined })).toEqual([expect.stringContaining('is stale: src/rule.ts changed')]);
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
