import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { currentManifest, manifestMismatch, parseTar, readReadyMade, readyMadePaths } from '../../src/engine/postgres/pglite-ready.js';
import { tempDir } from '../support/files.js';

/** A ustar archive as PGlite's dumpDataDir writes one (paths from `/`). */
function tarOf(entries: Array<{ name: string; type?: string; data?: string }>): Uint8Array {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const data = Buffer.from(entry.data ?? '');
    const header = Buffer.alloc(512);
    header.write(entry.name, 0, 100);
    header.write('0000600\0', 100);
    header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write('00000000000\0', 136);
    header.write(entry.type ?? (entry.data === undefined ? '5' : '0'), 156);
    header.write('ustar\0' + '00', 257);
    header.write('        ', 148);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  return Buffer.concat([...blocks, Buffer.alloc(1024)]);
}

describe('the ready-made database archive', () => {
  it('reads folders and files, paths relative to the data folder', () => {
    const entries = parseTar(
      tarOf([{ name: '/global' }, { name: '/global/pg_control', data: 'x'.repeat(600) }, { name: '/PG_VERSION', data: '17\n' }]),
    );
    expect(entries.map((e) => [e.path, e.data === null ? null : Buffer.from(e.data).toString()])).toEqual([
      ['global', null],
      ['global/pg_control', 'x'.repeat(600)],
      ['PG_VERSION', '17\n'],
    ]);
  });

  it('refuses a bad header, a path out of the folder, a link, a truncated entry', () => {
    const good = tarOf([{ name: '/PG_VERSION', data: '17\n' }]);
    const flipped = Uint8Array.from(good);
    flipped[1] = 'Q'.charCodeAt(0);
    expect(() => parseTar(flipped)).toThrow(/checksum/);
    expect(() => parseTar(tarOf([{ name: '/base/../../etc/x', data: 'x' }]))).toThrow(/unexpected path/);
    expect(() => parseTar(tarOf([{ name: '/link', type: '2' }]))).toThrow(/entry type/);
    expect(() => parseTar(good.subarray(0, 600))).toThrow(/truncated/);
  });

  it('is used only for the PGlite installed and the migration files it holds, unchanged', () => {
    const now = currentManifest();
    expect(manifestMismatch(now, now)).toBeNull();
    // made before the newest migration: that one is applied by migrate() as usual
    expect(manifestMismatch({ ...now, migrations: now.migrations.slice(0, -1) }, now)).toBeNull();
    expect(manifestMismatch({ ...now, pglite: '0.0.1' }, now)).toMatch(/made by PGlite 0\.0\.1/);
    const first = now.migrations[0];
    if (first === undefined) throw new Error('no migrations');
    expect(manifestMismatch({ ...now, migrations: [{ ...first, sha256: '0'.repeat(64) }] }, now)).toMatch(/changed since/);
    expect(manifestMismatch({ ...now, migrations: [...now.migrations, { name: '999_gone', sha256: '0' }] }, now)).toMatch(/no longer/);
  });

  it('says why a ready-made database cannot be used instead of throwing', () => {
    const folder = join(tempDir(), 'ready');
    mkdirSync(folder);
    const paths = readyMadePaths(folder);
    const write = (manifest: object, tar: Uint8Array) => {
      writeFileSync(paths.manifest, JSON.stringify(manifest));
      writeFileSync(paths.archive, gzipSync(tar));
    };
    write({ ...currentManifest(), pglite: '0.0.1' }, tarOf([{ name: '/PG_VERSION', data: '17\n' }]));
    expect(readReadyMade(folder)).toEqual({ usable: false, reason: expect.stringMatching(/made by PGlite 0\.0\.1/) as unknown });
    write(currentManifest(), tarOf([{ name: '/global' }]));
    expect(readReadyMade(folder)).toEqual({ usable: false, reason: expect.stringMatching(/holds no PG_VERSION/) as unknown });
    write({ nothing: true }, tarOf([]));
    expect(readReadyMade(folder)).toEqual({ usable: false, reason: expect.stringMatching(/is not a manifest/) as unknown });
    write(currentManifest(), tarOf([{ name: '/PG_VERSION', data: '17\n' }]));
    expect(readReadyMade(folder)).toMatchObject({ usable: true, entries: [{ path: 'PG_VERSION' }] });
  });
});
