/**
 * A tiny file system that is full: a tmpfs of two pages mounted on a fresh folder and filled up.
 * Files can be created in it (tmpfs counts inodes apart from space) but no byte can be written:
 * what a real full disk does. Root only (mount); null where it cannot be mounted.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './files.js';

export interface FullDevice {
  readonly dir: string;
  /** Free one page (4096 bytes): a file may then grow to one page, and no further. */
  freeOnePage(): void;
  unmount(): void;
}

export function mountFullDevice(): FullDevice | null {
  if (process.getuid?.() !== 0) return null;
  const dir = join(tempDir(), 'full');
  mkdirSync(dir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8k', 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return null;
  }
  const fillers: string[] = [];
  try {
    for (let i = 0; ; i++) {
      const filler = join(dir, `.fill${i}`);
      writeFileSync(filler, Buffer.alloc(4096));
      fillers.push(filler);
    }
  } catch {
    // full
  }
  return {
    dir,
    freeOnePage() {
      const filler = fillers.pop();
      if (filler === undefined) throw new Error('nothing left to free');
      unlinkSync(filler);
    },
    unmount() {
      execFileSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * An empty tmpfs of `size` (mount's size=, such as 80m) on a fresh folder: a small disk that a
 * load fills. Root only (mount); null where it cannot be mounted. `freeOnePage` is not for it.
 */
export function mountSmallDevice(size: string): FullDevice | null {
  if (process.getuid?.() !== 0) return null;
  const dir = join(tempDir(), 'small');
  mkdirSync(dir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return null;
  }
  return {
    dir,
    freeOnePage() {
      throw new Error('a small device is not filled up: nothing to free');
    },
    unmount() {
      execFileSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether mountSmallDevice works here (tried once). */
export function smallDeviceAvailable(): boolean {
  return fullDeviceAvailable();
}

let available: boolean | undefined;
/** Whether mountFullDevice works here (tried once: mounted and unmounted again). */
export function fullDeviceAvailable(): boolean {
  if (available === undefined) {
    const probe = mountFullDevice();
    probe?.unmount();
    available = probe !== null;
  }
  return available;
}
