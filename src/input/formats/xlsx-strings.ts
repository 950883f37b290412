/**
 * The shared strings of a workbook as the sheet's cells refer to them, kept compactly: the UTF-8
 * bytes of every plain string in one growing buffer and where each ends in one growing array, a
 * string decoded only when a cell refers to it. exceljs's own cache holds each as a JS string
 * (sliced from the parser's chunks: about 70 bytes of heap for a 13-character key, a sheet of a
 * million distinct keys a million of them, for as long as the sheet is read); here 13 bytes and a
 * 4-byte end. The heap also peaks lower by more than that: V8 lets it grow to a multiple of what
 * stays live between its full collections.
 * Anything else the parser gives (rich text, an empty <si/> as null, a string whose UTF-16 would
 * not survive UTF-8: a lone surrogate) is kept as given, apart, so every cell reads as it would
 * from exceljs's cache.
 */

/** A shared string as exceljs's part parser gives it: its text, its runs of rich text, or null (an empty <si/>). */
export type SharedString = string | { richText: Array<{ text: string }> } | null;

const LONE_SURROGATE = /[\uD800-\uDFFF]/;

export class SharedStrings {
  private bytes = Buffer.allocUnsafe(1 << 16);
  private used = 0;
  /** ends[i]: where string i's bytes end (they start where string i - 1's end). */
  private ends = new Uint32Array(1 << 12);
  private count = 0;
  /** The strings not kept as bytes, by index. */
  private readonly apart = new Map<number, unknown>();

  get size(): number {
    return this.count;
  }

  /** The next shared string (exceljs numbers them in order from 0). */
  add(value: unknown): void {
    if (this.count === this.ends.length) {
      const ends = new Uint32Array(this.ends.length * 2);
      ends.set(this.ends);
      this.ends = ends;
    }
    if (typeof value === 'string' && !LONE_SURROGATE.test(value)) {
      const length = Buffer.byteLength(value, 'utf8');
      if (this.used + length > this.bytes.length) {
        const bytes = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + length));
        this.bytes.copy(bytes, 0, 0, this.used);
        this.bytes = bytes;
      }
      this.used += this.bytes.write(value, this.used, 'utf8');
    } else this.apart.set(this.count, value);
    this.ends[this.count++] = this.used;
  }

  /** Shared string `index` as exceljs's cache would give it (undefined: no such string). */
  get(index: number): unknown {
    if (!(index >= 0 && index < this.count)) return undefined;
    const start = index === 0 ? 0 : (this.ends[index - 1] as number);
    const end = this.ends[index] as number;
    if (start === end && this.apart.has(index)) return this.apart.get(index);
    return this.bytes.toString('utf8', start, end);
  }
}
