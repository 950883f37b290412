/**
 * The distinct source keys of a dry run, each with a small number (what its last line came to):
 * what a `Map<string, number>` holds, in typed arrays. The dry run needs every distinct key of a
 * file to count what a load would insert and how many lines repeat a key. A Map of 1,000,000 keys
 * was about half of a dry run's CPU (its growth, and the young-generation collections that copied
 * every key string it kept); here a key's characters are copied into one array and the string is
 * not kept (bench/RESULTS.md, "The quote-free split").
 *
 * Exact: keys are compared character by character when their hashes are equal (a hash only picks
 * the slot), so two keys are the same entry only when they are the same text.
 */

/** FNV-1a over the UTF-16 units, then murmur3's finalizer (consecutive keys spread over the table). */
export function keyHash32(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

export class KeyTable {
  /** Open addressing, linear probing: entry number + 1 per slot, 0 for an empty one; a power of two long. */
  private slots = new Int32Array(1 << 12);
  /** Per entry, in the order the keys came: its hash, where its characters start in `chars`, its number. */
  private hashes = new Int32Array(1 << 11);
  private starts = new Int32Array((1 << 11) + 1);
  private numbers = new Uint8Array(1 << 11);
  private chars = new Uint16Array(1 << 15);
  private count = 0;

  /** `hash` is for the tests, which make keys collide. */
  constructor(private readonly hash: (key: string) => number = keyHash32) {}

  /** Distinct keys. */
  get size(): number {
    return this.count;
  }

  /** Sets the number of `key` (0–255); true when the key was there already (its number replaced). */
  set(key: string, value: number): boolean {
    const h = this.hash(key);
    const mask = this.slots.length - 1;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const entry = (this.slots[s] as number) - 1;
      if (entry < 0) {
        this.add(s, h, key, value);
        return false;
      }
      if (this.hashes[entry] === h && this.holds(entry, key)) {
        this.numbers[entry] = value;
        return true;
      }
    }
  }

  /** How many keys have each number: counts[n] for number n. */
  numberCounts(): number[] {
    const counts = new Uint32Array(256);
    for (let e = 0; e < this.count; e++) {
      const n = this.numbers[e] as number;
      counts[n] = (counts[n] as number) + 1;
    }
    return [...counts];
  }

  private holds(entry: number, key: string): boolean {
    const start = this.starts[entry] as number;
    if ((this.starts[entry + 1] as number) - start !== key.length) return false;
    const chars = this.chars;
    for (let i = 0; i < key.length; i++) if (chars[start + i] !== key.charCodeAt(i)) return false;
    return true;
  }

  private add(slot: number, h: number, key: string, value: number): void {
    const e = this.count;
    if (e === this.hashes.length) this.growEntries();
    let start = this.starts[e] as number;
    if (start + key.length > this.chars.length) {
      const bigger = new Uint16Array(Math.max(this.chars.length * 2, start + key.length));
      bigger.set(this.chars);
      this.chars = bigger;
    }
    const chars = this.chars;
    for (let i = 0; i < key.length; i++) chars[start++] = key.charCodeAt(i);
    this.starts[e + 1] = start;
    this.hashes[e] = h;
    this.numbers[e] = value;
    this.slots[slot] = e + 1;
    this.count = e + 1;
    // at most half full: probes stay short
    if (this.count * 2 > this.slots.length) this.growSlots();
  }

  private growEntries(): void {
    const n = this.hashes.length * 2;
    const hashes = new Int32Array(n);
    hashes.set(this.hashes);
    this.hashes = hashes;
    const starts = new Int32Array(n + 1);
    starts.set(this.starts);
    this.starts = starts;
    const numbers = new Uint8Array(n);
    numbers.set(this.numbers);
    this.numbers = numbers;
  }

  /** Twice the slots, the entries placed again by their kept hashes (no key is hashed again). */
  private growSlots(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let e = 0; e < this.count; e++) {
      let s = (this.hashes[e] as number) & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = e + 1;
    }
    this.slots = slots;
  }
}
