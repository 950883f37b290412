/**
 * The table of the pre-read of repeated keys (src/input/repeated-keys.ts): every line's 53-bit key
 * hash, 8 bytes a line, and in the end only the hashes found more than once, 8 bytes each.
 *
 * The hashes are written into a resizable ArrayBuffer: V8 reserves its address space up front
 * and takes pages as they are written, so it grows in place, and when it goes its pages go back
 * to the system. Both matter at 10,000,000 lines (bench/RESULTS.md, run 38): an array that
 * doubles held its old 64 MB beside the new one while it was copied, and the run kept its 128 MB
 * table through all its staging (peak RSS 276 MB); 64 KB blocks instead were freed into the C
 * allocator's heap, which kept their 80 MB resident for the rest of the load. A table past one
 * reservation goes on in another one; each is sorted in place, and equal neighbours in their
 * merged order are the repeated hashes.
 */

/** The largest reservation a resizable ArrayBuffer takes here (4 GB: 536,870,912 lines). */
const MAX_SEGMENT_BYTES = 2 ** 32;
const FIRST_BYTES = 2 ** 19;

/** ES2024's resizable ArrayBuffer (Node ≥ 20), beyond this project's ES2023 library types. */
interface ResizableBuffer extends ArrayBuffer {
  readonly maxByteLength: number;
  resize(byteLength: number): void;
}
const Resizable = ArrayBuffer as unknown as new (byteLength: number, options: { maxByteLength: number }) => ResizableBuffer;

type MakeBuffer = (byteLength: number, options: { maxByteLength: number }) => ResizableBuffer;

/** A buffer that may grow to `max` bytes, or to less when the address space is short (a ulimit -v). */
export function reserve(max: number, make: MakeBuffer = (length, options) => new Resizable(length, options)): ResizableBuffer {
  for (let bytes = max; ; bytes /= 2) {
    try {
      return make(Math.min(FIRST_BYTES, bytes), { maxByteLength: bytes });
    } catch (error) {
      if (!(error instanceof RangeError) || bytes <= FIRST_BYTES) throw error;
    }
  }
}

/** The hashes found more than once, sorted: 8 bytes each. */
export class RepeatedHashes {
  constructor(private readonly sorted: Float64Array) {}

  get count(): number {
    return this.sorted.length;
  }

  get bytes(): number {
    return this.sorted.byteLength;
  }

  has(hash: number): boolean {
    let lo = 0;
    let hi = this.sorted.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const h = this.sorted[mid] as number;
      if (h === hash) return true;
      if (h < hash) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }
}

export class KeyHashTable {
  /** Every buffer but the last is full. */
  private segments: ResizableBuffer[] = [];
  /** The last buffer's hashes (a view of its current length) and how many are written. */
  private current = new Float64Array(0);
  private n = 0;
  private added = 0;

  /** `segmentBytes`: the reservation of each buffer (smaller in tests, to reach a second one). */
  constructor(private readonly segmentBytes = MAX_SEGMENT_BYTES) {}

  /** Hashes added (lines read). */
  get lines(): number {
    return this.added;
  }

  /** Bytes of the buffers' current lengths (pages not yet written are not taken). */
  get bytes(): number {
    return this.segments.reduce((sum, buffer) => sum + buffer.byteLength, 0);
  }

  /** The buffers in use: more than one only past a reservation. */
  get segmentCount(): number {
    return this.segments.length;
  }

  add(hash: number): void {
    if (this.n === this.current.length) this.grow();
    this.current[this.n++] = hash;
    this.added++;
  }

  private grow(): void {
    let buffer = this.segments[this.segments.length - 1];
    if (buffer !== undefined && buffer.byteLength < buffer.maxByteLength) {
      buffer.resize(Math.min(buffer.byteLength * 2, buffer.maxByteLength));
    } else {
      buffer = reserve(this.segmentBytes);
      this.segments.push(buffer);
      this.n = 0;
    }
    // a view of a fixed length: V8 writes it faster than one that tracks the buffer's length
    this.current = new Float64Array(buffer, 0, buffer.byteLength / 8);
  }

  /** The hashes added more than once; the table lets go of its buffers (it keeps its count of lines). */
  repeated(): RepeatedHashes {
    const last = this.segments.length - 1;
    const sorted = this.segments.map((buffer, i) => new Float64Array(buffer, 0, i === last ? this.n : buffer.byteLength / 8).sort());
    this.segments = [];
    this.current = new Float64Array(0);
    this.n = 0;
    // counted first, so that the answer is one array of its exact size
    let count = 0;
    forEachRepeated(sorted, () => count++);
    const found = new Float64Array(count);
    let i = 0;
    forEachRepeated(sorted, (h) => (found[i++] = h));
    return new RepeatedHashes(found);
  }
}

/** Each hash found more than once in the sorted runs, once, in order: a merge of the runs. */
function forEachRepeated(runs: readonly Float64Array[], found: (hash: number) => void): void {
  if (runs.length === 1) {
    eachRepeatedOf(runs[0] as Float64Array, found);
    return;
  }
  const at = runs.map(() => 0);
  let previous = -1;
  let told = -1;
  for (;;) {
    // the smallest head among the runs: few runs (one a 536,870,912 lines), a scan is enough
    let min = -1;
    for (let r = 0; r < runs.length; r++) {
      const run = runs[r] as Float64Array;
      const i = at[r] as number;
      if (i < run.length && (min < 0 || (run[i] as number) < ((runs[min] as Float64Array)[at[min] as number] as number))) min = r;
    }
    if (min < 0) return;
    const h = (runs[min] as Float64Array)[at[min] as number] as number;
    at[min] = (at[min] as number) + 1;
    if (h === previous && h !== told) {
      found(h);
      told = h;
    }
    previous = h;
  }
}

function eachRepeatedOf(sorted: Float64Array, found: (hash: number) => void): void {
  for (let i = 1; i < sorted.length; i++) {
    const h = sorted[i] as number;
    // a hash three times is one repeated hash
    if (h === sorted[i - 1] && (i < 2 || h !== sorted[i - 2])) found(h);
  }
}
