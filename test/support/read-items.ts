/** Every item of a file read through openOrderFile (the reader tests' one way to read a whole file). */
import { openOrderFile, type FileItem, type OrderFileOptions } from '../../src/input/order-file.js';

export async function readItems(path: string, options: OrderFileOptions): Promise<FileItem[]> {
  const file = await openOrderFile(path, options);
  const items: FileItem[] = [];
  try {
    for await (const item of file.items) items.push(item);
  } finally {
    file.close();
  }
  return items;
}
