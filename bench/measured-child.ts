/**
 * A child process with its wall time, peak RSS and CPU time: from GNU `/usr/bin/time -v` when it
 * is installed, else peak RSS by polling /proc/<pid>/status VmHWM (and no CPU time).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const GNU_TIME = '/usr/bin/time';

export interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  peakRssKb: number | null;
  /** CPU seconds of the child (GNU time only). */
  userS: number | null;
  sysS: number | null;
}

/** `env`: set in the child's environment beside this process's. */
export function runMeasured(command: string, args: string[], env: Record<string, string> = {}): Promise<ChildResult> {
  const useTime = existsSync(GNU_TIME);
  const started = performance.now();
  const options = { env: { ...process.env, ...env } };
  const child = useTime ? spawn(GNU_TIME, ['-v', command, ...args], options) : spawn(command, args, options);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let polledKb: number | null = null;
  const poll = useTime
    ? null
    : setInterval(() => {
        try {
          const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${String(child.pid)}/status`, 'utf8'));
          if (m?.[1] !== undefined) polledKb = Math.max(polledKb ?? 0, Number(m[1]));
        } catch {
          // the process is gone
        }
      }, 50);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (poll !== null) clearInterval(poll);
      const wallMs = performance.now() - started;
      let peakRssKb = polledKb;
      let exit = code;
      let userS: number | null = null;
      let sysS: number | null = null;
      if (useTime) {
        const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
        peakRssKb = m?.[1] !== undefined ? Number(m[1]) : null;
        const e = /Exit status: (\d+)/.exec(stderr);
        if (e?.[1] !== undefined) exit = Number(e[1]);
        const u = /User time \(seconds\): ([\d.]+)/.exec(stderr);
        const s = /System time \(seconds\): ([\d.]+)/.exec(stderr);
        if (u?.[1] !== undefined) userS = Number(u[1]);
        if (s?.[1] !== undefined) sysS = Number(s[1]);
      }
      resolve({ code: exit, stdout, stderr, wallMs, peakRssKb, userS, sysS });
    });
  });
}
