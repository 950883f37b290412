/**
 * The most a gzip file may inflate to, per byte of compressed data (`--max-inflate`). Deflate
 * reaches about 1,032 to 1; order files compress far less (the bench's generated 1M-row CSV 3.1
 * to 1 with gzip -9): past the cap the content is refused, not read for minutes (a
 * 3 MB gzip of 3 GiB of blank lines). The first MiB of content is always allowed, whatever the
 * ratio: a small file that compresses well is no danger.
 */
export const DEFAULT_MAX_INFLATE = 200;
/** Content always allowed before the ratio is looked at. */
const SLACK = 1024 * 1024;

export interface InflateCap {
  /** `bytes` more of content inflated from the first `compressed` bytes of the file: past the cap, why it is refused. */
  check(bytes: number, compressed: number): string | null;
}

export function inflateCap(maxInflate: number | undefined): InflateCap {
  const ratio = maxInflate ?? DEFAULT_MAX_INFLATE;
  let total = 0;
  return {
    check(bytes, compressed) {
      total += bytes;
      if (total <= SLACK + ratio * compressed) return null;
      return `the gzip data inflates to more than ${ratio} times its size (${total} bytes of content from ${compressed} compressed): refused (--max-inflate sets the limit)`;
    },
  };
}
