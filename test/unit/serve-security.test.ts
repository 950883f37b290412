import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { shown } from '../../src/serve/html.js';
import { startReview } from '../../src/serve/index.js';
import { checkListen, parseListen } from '../../src/serve/security.js';
import { memoryLogger } from '../support/memory-logger.js';
import { tempDir, writeTestFile } from '../support/files.js';

describe('serve --listen', () => {
  it('loopback unless told otherwise; a bare port is on 127.0.0.1', () => {
    expect(parseListen('127.0.0.1:8080')).toEqual({ host: '127.0.0.1', port: 8080, loopback: true });
    expect(parseListen('[::1]:80')).toEqual({ host: '::1', port: 80, loopback: true });
    expect(parseListen('localhost:1')).toMatchObject({ loopback: true });
    expect(parseListen('9000')).toEqual({ host: '127.0.0.1', port: 9000, loopback: true });
    expect(parseListen('0.0.0.0:8080')).toMatchObject({ loopback: false });
    expect(parseListen('192.168.1.5:8080')).toMatchObject({ loopback: false });
    expect(() => parseListen('nonsense')).toThrow(UserError);
    expect(() => parseListen('127.0.0.1:99999')).toThrow(UserError);
  });

  it('a non-loopback address without a token is refused, with one it is allowed', () => {
    expect(() => checkListen(parseListen('0.0.0.0:8080'), false)).toThrow(/not a loopback address; give --token-file/);
    expect(() => checkListen(parseListen('0.0.0.0:8080'), true)).not.toThrow();
    expect(() => checkListen(parseListen('127.0.0.1:8080'), false)).not.toThrow();
  });

  it('startReview refuses before anything is opened: no token off loopback, a short or missing token file', async () => {
    const dir = join(tempDir(), 'db');
    const base = { db: `pglite:${dir}`, logger: memoryLogger('warn').logger, lockTimeoutMs: 0 };
    await expect(startReview({ ...base, listen: '0.0.0.0:0' })).rejects.toThrow(/not a loopback address/);
    await expect(startReview({ ...base, listen: '0.0.0.0:0', tokenFile: writeTestFile('short\n', 'token') })).rejects.toThrow(
      /at least 16/,
    );
    await expect(startReview({ ...base, tokenFile: join(dir, 'none') })).rejects.toThrow(/cannot be read/);
    expect(existsSync(dir)).toBe(false);
  });
});

describe('text from partners on the page', () => {
  it('is escaped, its control characters and bidi controls shown as escapes, a long line cut with what was left out', () => {
    expect(shown('<script>alert(1)</script>').markup).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(shown('"><img src=x onerror=alert(1)>').markup).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(shown('a\u001b[31mb\u202ec\u200fd\u0000').markup).toContain('a\\x1b[31mb\\u{202e}c\\u{200f}d\\x00');
    const long = shown('x'.repeat(1_000_000), 300).markup;
    expect(long.length).toBeLessThan(500);
    expect(long).toContain('999,700 more characters');
  });
});
