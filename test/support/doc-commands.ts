/**
 * The commands of README.md and docs/*.md, run as written.
 *
 * A ```console block is a transcript: each `$ ` line is a command, the lines up to the next
 * `$ ` line are what it prints (stdout, then the lines of stderr that are not JSON log lines:
 * what a terminal shows, since logs there are at warn). In the shown output a line `…` stands
 * for any number of lines and `…` inside a line for any text (a time, a temporary name); a
 * command with no output lines is checked for its exit code only. A trailing comment
 * `# exit N` says the command's exit code; without it the command must exit 0.
 *
 * A ```sh block is not run: it must follow a comment `<!-- not run: <why> -->` (a server, an
 * Oracle, a scheduler, minutes of measuring), so that every command a page shows is either run
 * or says why not.
 *
 * `order-loader …` (and `npx order-loader …`) lines run inside the test's process, in the
 * transcript's folder (see runTranscript); `cd` moves the transcript; any other line, or one
 * with a pipe, a glob or a variable, runs through `sh -c` with an `order-loader` on PATH that
 * runs the built bin.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'vitest';
import { runCli as runCommandLine } from '../../src/cli/run-cli.js';
import { CHILD_NODE_FLAGS, CLEAN_ENV, CLI } from './cli-run.js';

export interface DocCommand {
  /** Where it is: `README.md:42`. */
  where: string;
  line: string;
  exitCode: number;
  /** The shown output lines; empty: not checked. */
  output: string[];
}

export interface UnrunBlock {
  where: string;
  reason: string | null;
}

/** The ```console transcripts of a page, in order, and its ```sh blocks with their reasons. */
export function pageCommands(markdown: string, file: string): { commands: DocCommand[]; unrun: UnrunBlock[] } {
  const lines = markdown.split('\n');
  const commands: DocCommand[] = [];
  const unrun: UnrunBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)```(\S*)/.exec(lines[i] ?? '');
    if (fence === null) continue;
    const indent = fence[1] ?? '';
    const lang = fence[2] ?? '';
    let end = i + 1;
    while (end < lines.length && (lines[end] ?? '').trim() !== '```') end++;
    const body = lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l));
    if (lang === 'console') {
      let current: DocCommand | undefined;
      body.forEach((l, k) => {
        if (l.startsWith('$ ')) {
          const { command, exitCode } = splitComment(l.slice(2));
          current = { where: `${file}:${i + 2 + k}`, line: command, exitCode, output: [] };
          commands.push(current);
        } else if (current !== undefined) current.output.push(l);
      });
    } else if (lang === 'sh') {
      let before = i - 1;
      while (before >= 0 && (lines[before] ?? '').trim() === '') before--;
      const reason = /<!-- not run: (.+) -->/.exec(lines[before] ?? '');
      unrun.push({ where: `${file}:${i + 1}`, reason: reason?.[1] ?? null });
    }
    i = end;
  }
  // output shown with trailing blank lines (before the closing fence) says nothing more
  for (const c of commands) while (c.output.length > 0 && (c.output.at(-1) ?? '').trim() === '') c.output.pop();
  return { commands, unrun };
}

/** The command without its trailing `# comment`, and the exit code the comment gives (`# exit 2`). */
function splitComment(text: string): { command: string; exitCode: number } {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote !== null) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1] as string))) {
      const exit = /exit (\d+)/.exec(text.slice(i));
      return { command: text.slice(0, i).trim(), exitCode: exit === null ? 0 : Number(exit[1]) };
    }
  }
  return { command: text.trim(), exitCode: 0 };
}

/**
 * The words of a command line, when the line is a plain `order-loader …` (quotes removed), with
 * where its stdout is redirected; null when it needs a shell.
 */
export function plainOrderLoader(line: string): { args: string[]; stdoutTo: string | null } | null {
  const words: string[] = [];
  let word: string | null = null;
  let quote: string | null = null;
  for (const c of line) {
    if (quote !== null) {
      if (c === quote) quote = null;
      else word = (word ?? '') + c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if ('|&;<`$*?[(){}\\'.includes(c)) return null;
    else word = (word ?? '') + c;
  }
  if (quote !== null) return null;
  if (word !== null) words.push(word);
  if (words[0] === 'npx') words.shift();
  if (words[0] !== 'order-loader') return null;
  const redirect = words.indexOf('>');
  if (redirect !== -1 && redirect !== words.length - 2) return null;
  if (words.some((w, k) => w.includes('>') && k !== redirect)) return null;
  return { args: words.slice(1, redirect === -1 ? undefined : redirect), stdoutTo: redirect === -1 ? null : (words.at(-1) as string) };
}

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/** What a terminal shows of stderr: not the JSON log lines (on a terminal the log is at warn, as readable lines). */
const shownStderr = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('{'))
    .map((l) => `${l}\n`)
    .join('');

export interface CommandResult {
  code: number | null;
  /** stdout (unless redirected), then what a terminal shows of stderr. */
  output: string;
}

/** A folder with an `order-loader` that runs the built bin, for the lines a shell runs. */
export function binShim(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const script = join(dir, 'order-loader');
  writeFileSync(script, `#!/bin/sh\nexec '${process.execPath}' ${CHILD_NODE_FLAGS.join(' ')} '${CLI}' "$@"\n`);
  chmodSync(script, 0o755);
  return dir;
}

/**
 * A transcript's commands, in order, from the folder `start`. An `order-loader` line runs inside
 * this process with the process's working directory moved to the transcript's folder for the
 * time of the command (the test runner's workers are processes: vitest's `forks` pool), so that
 * relative paths and the default database `./.order-loader/db` are the transcript's.
 */
export class Transcript {
  cwd: string;
  constructor(
    start: string,
    private readonly shim: string,
    private readonly env: Record<string, string> = {},
  ) {
    this.cwd = start;
  }

  async run(line: string): Promise<CommandResult> {
    const cd = /^cd\s+(\S+)$/.exec(line);
    if (cd !== null) {
      this.cwd = resolve(this.cwd, cd[1] as string);
      return { code: 0, output: '' };
    }
    const plain = plainOrderLoader(line);
    if (plain === null) {
      const result = spawnSync('sh', ['-c', line], {
        cwd: this.cwd,
        encoding: 'utf8',
        env: { ...CLEAN_ENV, ...this.env, PATH: `${this.shim}:${CLEAN_ENV.PATH ?? ''}` },
        timeout: 120_000,
      });
      return { code: result.status, output: result.stdout + shownStderr(result.stderr) };
    }
    const stdout = capture();
    const stderr = capture();
    const home = process.cwd();
    process.chdir(this.cwd);
    let code: number;
    try {
      code = await runCommandLine(plain.args, { stdout: stdout.stream, stderr: stderr.stream, env: { ...CLEAN_ENV, ...this.env } });
      await new Promise((done) => setImmediate(done));
    } finally {
      process.chdir(home);
    }
    if (plain.stdoutTo !== null) {
      writeFileSync(resolve(this.cwd, plain.stdoutTo), stdout.text());
      return { code, output: shownStderr(stderr.text()) };
    }
    return { code, output: stdout.text() + shownStderr(stderr.text()) };
  }
}

/** The shown output as a pattern of the whole output: `…` lines and `…` in a line are wildcards. */
export function outputPattern(shown: string[]): RegExp {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const body = shown
    .map((l) => l.trimEnd())
    .map((l) => (l === '…' ? '(?:[^\\n]*\\n)*?' : `${l.split('…').map(escape).join('[^\\n]*?')}\\n`))
    .join('');
  return new RegExp(`^${body}$`);
}

/** The output as the pattern reads it: each line without trailing blanks, each line ended. */
export function normalizeOutput(text: string): string {
  if (text === '') return '';
  const lines = text.replace(/\n$/, '').split('\n');
  return lines.map((l) => `${l.trimEnd()}\n`).join('');
}

/**
 * Run a page's commands in order in `transcript`'s folder, each expected to exit as the page says
 * and to print what it shows (the README tour and every docs page are checked by this).
 */
export async function expectTranscript(transcript: Transcript, commands: readonly DocCommand[]): Promise<void> {
  for (const command of commands) {
    const result = await transcript.run(command.line);
    const what = `${command.where}: ${command.line}\n--- output:\n${result.output}`;
    expect(result.code, what).toBe(command.exitCode);
    if (command.output.length > 0) expect(normalizeOutput(result.output), what).toMatch(outputPattern(command.output));
  }
}
