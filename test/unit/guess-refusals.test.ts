/**
 * guess's answers to what a test cannot otherwise produce: a file the system refuses to read
 * (permission denied: the tests run as root, whom chmod does not stop), and a draft without an
 * open choice that still does not check as a profile (the net under every detector). The file
 * reader and the profile check are mocked for these cases only; everything else is the real code.
 * In `fast-isolated` (vi.mock).
 */
import { describe, expect, it, vi } from 'vitest';
import { UserError } from '../../src/errors.js';
import { guessFromSample, guessProfile } from '../../src/input/guess/index.js';

const faults = vi.hoisted(() => ({ read: new Map<string, Error>(), check: null as Error | null }));

vi.mock('../../src/input/gzip.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/input/gzip.js')>();
  return {
    ...real,
    isGzipFile: (path: string) => {
      const fault = faults.read.get(path);
      return fault === undefined ? real.isGzipFile(path) : Promise.reject(fault);
    },
  };
});

vi.mock('../../src/input/profile/load-profile.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/input/profile/load-profile.js')>();
  return {
    ...real,
    parseProfileText: (...args: Parameters<typeof real.parseProfileText>) => {
      if (faults.check !== null) throw faults.check;
      return real.parseProfileText(...args);
    },
  };
});

const errno = (code: string) => Object.assign(new Error(`${code}: refused`), { code });

describe('guessProfile: a file the system will not let it read', () => {
  it('permission denied (EACCES or EPERM): said in one line, the system error its cause', async () => {
    for (const code of ['EACCES', 'EPERM']) {
      const path = `/data/${code}.csv`;
      const cause = errno(code);
      faults.read.set(path, cause);
      const error: unknown = await guessProfile(path).catch((e: unknown) => e);
      expect(error, code).toEqual(new UserError(`${path}: not readable (permission denied)`));
      expect((error as UserError).cause, code).toBe(cause);
    }
  });

  it('an error without a system code is not dressed as a file error', async () => {
    const bug = new TypeError('not a file error');
    faults.read.set('/data/bug.csv', bug);
    await expect(guessProfile('/data/bug.csv')).rejects.toBe(bug);
  });
});

describe('guess: a draft with no open choice that does not check as a profile', () => {
  const lines = ['order_id,customer,date,amount,currency', 'A-1,501,2026-12-01,12.00,EUR', 'A-2,502,2026-12-02,13.50,EUR'];
  const draft = () => guessFromSample('orders.csv', Buffer.from(`${lines.join('\n')}\n`), true);

  it('becomes an open choice naming the refusal, so that load refuses it', () => {
    expect(draft().open).toEqual([]);
    faults.check = new UserError('profile draft: columns.amount: decimal: must be one character');
    try {
      const g = draft();
      const text =
        'the draft of orders.csv does not check as a profile (columns.amount: decimal: must be one character): correct that line';
      expect(g.open).toEqual([text]);
      expect(g.yaml.endsWith(`\nopen: ${JSON.stringify(text)}\n`)).toBe(true);
      faults.check = new RangeError('out of range');
      expect(draft().open).toEqual(['the draft of orders.csv does not check as a profile (RangeError: out of range): correct that line']);
    } finally {
      faults.check = null;
    }
  });
});
