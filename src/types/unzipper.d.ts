/**
 * The part of unzipper (0.10, the zip reader exceljs streams workbooks with) that the xlsx reader
 * uses: its streaming parser, whose readable side gives each zip entry as a stream of its
 * uncompressed bytes, in the archive's order. The package ships no types.
 */
declare module 'unzipper' {
  import type { Duplex, PassThrough } from 'node:stream';

  namespace unzipper {
    interface Entry extends PassThrough {
      /** The entry's name in the archive. */
      path: string;
      type: 'File' | 'Directory';
    }
    interface CentralFile {
      path: string;
      buffer(): Promise<Buffer>;
    }
  }
  const unzipper: {
    /** forceStream: every entry is pushed to the readable side (not only emitted). */
    Parse(options?: { forceStream?: boolean }): Duplex;
    Open: { buffer(data: Buffer): Promise<{ files: unzipper.CentralFile[] }> };
  };
  export = unzipper;
}
