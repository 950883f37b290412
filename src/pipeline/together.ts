/**
 * Reads that depend on none of the others, run together (on a server, each on a connection of the
 * pool; PGlite queues them on its one): the end of a run waits for the slowest, not for their sum.
 * A failure (the first in their order) is thrown once every read has ended, so that none is left
 * running on an engine the caller closes.
 */
export async function together<T extends readonly unknown[] | []>(reads: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  await Promise.allSettled(reads);
  return Promise.all(reads);
}
