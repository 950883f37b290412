import type { FileItem, OrderFile } from './order-file.js';

/**
 * The items of `file` after its line `line`: a load resumed in a file read without byte offsets
 * (a decoded encoding: UTF-16, Shift_JIS, EUC-JP, windows-1252) reads it from its first line
 * and passes over the lines its committed batches hold, so that none is staged or logged twice.
 */
export function afterLine(file: OrderFile, line: number): OrderFile {
  const items = file.items;
  async function* rest(): AsyncGenerator<FileItem> {
    for await (const item of items) if (item.endLine > line) yield item;
  }
  return { ...file, items: rest() };
}
