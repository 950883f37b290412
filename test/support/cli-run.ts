/**
 * Running the CLI the way a user does: from the repository root, with a clean environment (PATH
 * and HOME only, so that no ORDER_LOADER_* setting of the developer leaks in) plus what the test
 * gives.
 *
 * runCli runs the command line inside this process (src/cli/run-cli.ts, what the bin runs) on
 * streams of its own: a child process would cost its node start, its imports and PGlite's start
 * each time. spawnCli runs the built bin (`node dist/src/cli.js`) as a child process, for what
 * needs a process of its own: the bin itself, signals, an exit code seen by a shell, two
 * commands on one PGlite folder at once (the folder lock tells processes apart by pid).
 */
import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli as runCommandLine } from '../../src/cli/run-cli.js';
import { CHILD_NODE_FLAGS, CLI } from './pglite-template.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLEAN_ENV: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
export { CHILD_NODE_FLAGS, CLI } from './pglite-template.js';

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

/** The built bin as a child process. */
export function spawnCli(args: string[], options: CliRunOptions = {}): CliResult {
  const result = spawnSync(process.execPath, [...CHILD_NODE_FLAGS, CLI, ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...CLEAN_ENV, ...options.env },
    timeout: options.timeoutMs ?? 120_000,
    ...(options.killSignal === undefined ? {} : { killSignal: options.killSignal }),
  });
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

/** A stream that keeps what is written to it (not a terminal, as a child's pipe is not). */
function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      chunks.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      callback();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/**
 * The command line inside this process, as the bin runs it: the same stdout, stderr and exit
 * code. Past `timeoutMs` the run is stopped (as a first signal stops it) and reported killed
 * by `killSignal`, as spawnCli would. Relative paths are read from the working directory: a
 * process started elsewhere than the repository root runs the bin instead.
 */
export async function runCli(args: string[], options: CliRunOptions = {}): Promise<CliResult> {
  if (process.cwd() !== REPO_ROOT.replace(/\/$/, '')) return spawnCli(args, options);
  const stdout = capture();
  const stderr = capture();
  const io = { stdout: stdout.stream, stderr: stderr.stream, env: { ...CLEAN_ENV, ...options.env } };
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.timeoutMs ?? 120_000);
  });
  try {
    const code = await Promise.race([runCommandLine(args, io, { signal: controller.signal }), timedOut]);
    // what was written in the run's last tick has reached the streams
    await new Promise((resolve) => setImmediate(resolve));
    if (code === 'timeout') {
      controller.abort();
      return { code: null, signal: options.killSignal ?? 'SIGTERM', stdout: stdout.text(), stderr: stderr.text() };
    }
    return { code, signal: null, stdout: stdout.text(), stderr: stderr.text() };
  } finally {
    clearTimeout(timer);
  }
}
