import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: the nearest folder above this module that holds `sql/`. */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'sql')) && existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('order-loader: cannot find the sql/ folder of the package');
    dir = parent;
  }
}

const root = findPackageRoot();

/** The package's root folder (it holds sql/ and package.json; dist/ when built). */
export function packageRoot(): string {
  return root;
}

const cache = new Map<string, string>();

/** The text of sql/<engine>/<relativePath>, read once. */
export function readSql(engine: string, relativePath: string): string {
  const key = `${engine}/${relativePath}`;
  let text = cache.get(key);
  if (text === undefined) {
    text = readFileSync(join(root, 'sql', engine, relativePath), 'utf8');
    cache.set(key, text);
  }
  return text;
}

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Numbered migrations of sql/<engine>/migrations, in order. */
export function listMigrations(engine: string): Migration[] {
  const folder = join(root, 'sql', engine, 'migrations');
  return readdirSync(folder)
    .filter((f) => /^\d+_.+\.sql$/.test(f))
    .sort()
    .map((f) => ({
      version: Number.parseInt(f, 10),
      name: f.replace(/\.sql$/, ''),
      sql: readFileSync(join(folder, f), 'utf8'),
    }));
}
