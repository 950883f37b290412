import { describe, expect, it } from 'vitest';
import { createCommandLogger, readableLogLine } from '../../src/log.js';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  const stream = { isTTY, write: (s: string) => writes.push(s) > 0 } as unknown as NodeJS.WriteStream;
  return { stream, writes };
}

describe('command logger', () => {
  it('writes a warning on a terminal as one readable line, not JSON, and leaves info out by default', () => {
    const { stream, writes } = fakeStream(true);
    const logger = createCommandLogger({ stderr: stream });
    logger.info({ runId: 1 }, 'staging');
    logger.warn({ file: 'a.csv', columns: ['note', 'remark'] }, 'a.csv: ignoring extra column(s) note, remark');
    logger.warn({ attempt: 2, delayMs: 400, error: 'connection lost' }, 'chunk 1-3 rolled back; retrying');
    logger.error({ runId: 7, password: 'pw-secret' }, 'could not record the end of the run');
    expect(writes).toEqual([
      'warning: a.csv: ignoring extra column(s) note, remark\n',
      'warning: chunk 1-3 rolled back; retrying (attempt=2, delayMs=400, error="connection lost")\n',
      'error: could not record the end of the run (runId=7, password=[redacted])\n',
    ]);
  });

  it('redacts a wallet password and a password one or two objects deep', () => {
    const { stream, writes } = fakeStream(false);
    const logger = createCommandLogger({ stderr: stream });
    logger.warn(
      {
        options: { walletPassword: 'wallet-secret', user: 'app' },
        target: { db: { password: 'nested-secret' } },
        env: { ORDER_LOADER_DB_WALLET_PASSWORD: 'env-secret' },
      },
      'opening',
    );
    const line = writes.join('');
    expect(line).not.toMatch(/wallet-secret|nested-secret|env-secret/);
    expect(JSON.parse(line)).toMatchObject({
      options: { walletPassword: '[redacted]', user: 'app' },
      target: { db: { password: '[redacted]' } },
      env: { ORDER_LOADER_DB_WALLET_PASSWORD: '[redacted]' },
    });
  });

  it('keeps JSON lines at info when stderr is not a terminal', () => {
    const { stream, writes } = fakeStream(false);
    const logger = createCommandLogger({ stderr: stream });
    logger.info({ runId: 1 }, 'staging');
    logger.warn('careful');
    const records = writes
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: number; msg: string; runId?: number });
    expect(records).toMatchObject([
      { level: 30, msg: 'staging', runId: 1 },
      { level: 40, msg: 'careful' },
    ]);
  });

  it('honours an explicit level on a terminal', () => {
    const { stream, writes } = fakeStream(true);
    createCommandLogger({ stderr: stream, level: 'info' }).info({ runId: 3, file: 'x y.csv' }, 'staging');
    expect(writes).toEqual(['info: staging (runId=3, file="x y.csv")\n']);
  });

  it('passes a line that is not JSON through', () => {
    expect(readableLogLine('plain text')).toBe('plain text\n');
  });
});
