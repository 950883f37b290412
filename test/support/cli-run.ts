/**
 * Running the built CLI (`node dist/src/cli.js`) as a child process, the way a user does: from
 * the repository root, with a clean environment (PATH and HOME only, so that no ORDER_LOADER_*
 * setting of the developer leaks in) plus what the test gives.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = `${REPO_ROOT}dist/src/cli.js`;
export const CLEAN_ENV: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  /** Added to the clean environment. */
  env?: Record<string, string> | undefined;
  /** Default 120 s: a CLI call on PGlite on a busy machine. */
  timeoutMs?: number | undefined;
  /** How a call past its time is stopped (SIGKILL where SIGTERM would be handled as a stop request). */
  killSignal?: NodeJS.Signals | undefined;
}

export function runCli(args: string[], options: CliRunOptions = {}): CliResult {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...CLEAN_ENV, ...options.env },
    timeout: options.timeoutMs ?? 120_000,
    ...(options.killSignal === undefined ? {} : { killSignal: options.killSignal }),
  });
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}
