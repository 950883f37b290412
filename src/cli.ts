#!/usr/bin/env node
/**
 * The `order-loader` bin: the command line (src/cli/run-cli.ts) on this process's stdout,
 * stderr and environment, ended with its exit code. Only here: the signal handlers
 * (src/cli/signals.ts), the handling of a reader that went away, and V8's WebAssembly tiering
 * budget (src/engine/postgres/pglite-assets.ts).
 */
import { newSession, print, type CliIo } from './cli/command.js';
import { runCli, wantsJson } from './cli/run-cli.js';
import { stopOnSignals } from './cli/signals.js';
import { EXIT_FAILED } from './pipeline/outcome.js';
import { tuneWasmTiering } from './engine/postgres/pglite-assets.js';

// before any PGlite starts: a short command no longer pays for optimizing code it runs once
tuneWasmTiering();

const argv = process.argv.slice(2);
const io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env };
const session = newSession(io);
const controller = new AbortController();
const signals = stopOnSignals(session, controller, (message) => {
  process.stderr.write(`order-loader: ${message}\n`);
  // --json promises one document on stdout, also when a second signal ends the command
  if (wantsJson(argv) && !session.printed)
    print(session, JSON.stringify({ error: { kind: 'interrupted', message }, exitCode: EXIT_FAILED }));
});
// A reader that went away (`order-loader errors | head -1`, or `bench 2>&1 | head -1` for
// stderr) is not an error: without a listener the EPIPE of a later write would end the process
// with a stack trace, mid-run (a bench would leave its workspace and its generated file).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}
process.exitCode = await runCli(argv, io, { session, signal: controller.signal });
signals.finished(process.exitCode);
