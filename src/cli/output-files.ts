import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, statSync, statfsSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DestinationStream } from 'pino';
import { UserError } from '../errors.js';

/**
 * Open --log-file before any work: a folder we cannot write to, or a full device (/dev/full
 * too), is one clear line and exit 1 instead of a failure halfway through the command. A write
 * that fails later (the device filled up meanwhile) must not fail the load: it is said once on
 * stderr, and logging stops.
 */
export function openLogFile(path: string, stderr: { write(text: string): unknown } = process.stderr): DestinationStream {
  let fd: number;
  try {
    mkdirSync(dirname(path), { recursive: true });
    fd = openSync(path, 'a');
  } catch (error) {
    throw new UserError(`--log-file ${path}: cannot write there (${reason(error)})`, { cause: error });
  }
  try {
    const fs = statfsSync(dirname(path));
    if (fs.bavail === 0) throw new UserError(`--log-file ${path}: the device is full (no space left for the log)`);
    // a write of nothing: a file where writing fails at once (/dev/full: no space ever, a device
    // opened but not writable) fails it, any other file is unchanged
    writeSync(fd, '');
  } catch (error) {
    closeSync(fd);
    if (error instanceof UserError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOSPC')
      throw new UserError(`--log-file ${path}: the device is full (no space left for the log)`, { cause: error });
    throw new UserError(`--log-file ${path}: cannot write there (${reason(error)})`, { cause: error });
  }
  let failed = false;
  return {
    write(line: string) {
      if (failed) return;
      try {
        writeSync(fd, line);
      } catch (error) {
        failed = true;
        stderr.write(`order-loader: cannot write to --log-file ${path} (${reason(error)}): logging stops, the command goes on\n`);
      }
    },
  };
}

function reason(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  if (e.code === 'ENOSPC') return 'ENOSPC: no space left on the device';
  if (e.code === 'EACCES' || e.code === 'EPERM') return `${e.code}: permission denied`;
  if (e.code === 'ENOENT') return 'ENOENT: no such folder';
  if (e.code === 'ENOTDIR' || e.code === 'EEXIST') return `${e.code}: a file stands where the folder should be`;
  return typeof e.code === 'string' ? e.code : String(e.message ?? error);
}

/** bench --chart: its folder must exist and take the file, or the benchmark's results would be lost at the end. */
export function checkChartPath(path: string): void {
  try {
    accessSync(dirname(path), constants.W_OK);
  } catch (error) {
    throw new UserError(`--chart ${path}: cannot write there (${reason(error)})`, { cause: error });
  }
  if (existsSync(path) && statSync(path).isDirectory()) throw new UserError(`--chart ${path}: is a folder (name the .svg file)`);
}
