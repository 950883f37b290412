import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** sha256 of a file, streamed (the identity of a file for resume and skip, docs/ARCHITECTURE.md, section 2, step 2). */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
