import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';

/**
 * PGlite's file-system bundle (pglite.data: the share/ files a server starts with), read once
 * per process and given to every PGlite.create: without it each open reads and unpacks the 6 MB
 * file again (measured: 0.73 s of CPU per open of a database instead of 0.84 s). PGlite already
 * keeps its compiled WebAssembly modules for the process.
 */
let fsBundle: Promise<Blob> | undefined;

export function pgliteFsBundle(): Promise<Blob> {
  fsBundle ??= readFile(createRequire(import.meta.url).resolve('@electric-sql/pglite/pglite.data')).then((bytes) => new Blob([bytes]));
  return fsBundle;
}

/**
 * V8's budget for moving a WebAssembly function from its baseline code (Liftoff) to optimized
 * code (TurboFan): roughly the bytes of code a function runs before it is optimized. V8's
 * default, 1,800,000, has PGlite optimize hundreds of PostgreSQL's functions while the server
 * starts and runs its first statements, about 1.4 s of CPU on V8's background threads that a
 * short command pays in full on two cores. 100 times that still optimizes what a long load runs
 * hot within its first seconds. Measured (bench/RESULTS.md, run 23; first `load` of the sample
 * into a new folder, 6 alternating runs; a 100,000-row load, 3): the sample 2.49 → 1.88 s wall
 * (2.89 → 1.60 s CPU), 100,000 rows 8.83 → 8.49 s; 1,000 times the default made the 100,000-row
 * load slower (9.66 s), and Liftoff alone (no TurboFan) 13.3 s against 10.8 s.
 */
export const PGLITE_WASM_TIERING_BUDGET = 180_000_000;

/**
 * Set V8's WebAssembly tiering budget for this process (PGLITE_WASM_TIERING_BUDGET). Called by
 * the bin, which owns its process, before any PGlite starts; a program using the library may
 * call it too, or run Node with `--wasm-tiering-budget=180000000`.
 */
export function tuneWasmTiering(): void {
  setFlagsFromString(`--wasm-tiering-budget=${PGLITE_WASM_TIERING_BUDGET}`);
}
