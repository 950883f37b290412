/**
 * `order-loader serve`: the review page for the morning after (docs/review-page.md). Opens the
 * database the way the page needs it (src/serve/source.ts), checks the safety rules that can be
 * checked before listening, and listens.
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { DEFAULT_DB, maskDbUrl, parseDbUrl } from '../engine/db-url.js';
import { UserError } from '../errors.js';
import { OrderLoader, type OpenLoaderOptions } from '../loader.js';
import { operatorOf } from '../pipeline/operations.js';
import { reviewApp } from './app.js';
import { checkListen, parseListen } from './security.js';
import { listen, type RunningServer } from './server.js';
import { folderSource, sharedSource, type LoaderSource } from './source.js';

export { reviewApp, type ReviewAppOptions } from './app.js';
export { folderSource, sharedSource, type LoaderSource } from './source.js';
export type { RunningServer } from './server.js';

export interface ServeOptions {
  db?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  logger: Logger;
  /** host:port (default 127.0.0.1:8080). */
  listen?: string | undefined;
  allowEdit?: boolean | undefined;
  operator?: string | undefined;
  operatorHeader?: string | undefined;
  /** A file holding the access token (required off loopback). */
  tokenFile?: string | undefined;
  /** pglite:<dir>: how long a request waits for the folder a load holds. */
  lockTimeoutMs: number;
  connectTimeoutMs?: number | undefined;
}

/** The access token of --token-file: its first line, at least 16 characters. */
export function readAccessToken(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UserError(`serve --token-file ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, {
      cause: error,
    });
  }
  const token = (text.split(/\r?\n/)[0] ?? '').trim();
  if (token.length < 16) throw new UserError(`serve --token-file ${path}: the token (its first line) must have at least 16 characters`);
  return token;
}

async function openSource(o: ServeOptions, db: string): Promise<LoaderSource> {
  const target = parseDbUrl(db, o.env ?? process.env);
  const open = (lockTimeoutMs: number): Promise<OrderLoader> => {
    const options: OpenLoaderOptions = {
      db,
      env: o.env,
      logger: o.logger,
      command: 'serve',
      lockTimeoutMs,
      connectTimeoutMs: o.connectTimeoutMs,
      workers: 1,
    };
    return OrderLoader.open(options);
  };
  if (target.kind !== 'pglite' || target.dataDir === null) return sharedSource(await open(o.lockTimeoutMs));
  // opened once now: a database that cannot be opened, or a schema to migrate, is said before listening
  await (await open(o.lockTimeoutMs)).close();
  return folderSource(() => open(o.lockTimeoutMs));
}

export async function startReview(o: ServeOptions): Promise<RunningServer> {
  const env = o.env ?? process.env;
  const address = parseListen(o.listen ?? '127.0.0.1:8080');
  const accessToken = o.tokenFile === undefined ? undefined : readAccessToken(o.tokenFile);
  checkListen(address, accessToken !== undefined);
  const db = o.db ?? (env.ORDER_LOADER_DB !== undefined && env.ORDER_LOADER_DB !== '' ? env.ORDER_LOADER_DB : DEFAULT_DB);
  const source = await openSource(o, db);
  const app = reviewApp({
    source,
    dbLabel: maskDbUrl(db),
    allowEdit: o.allowEdit === true,
    operator: operatorOf(o.operator),
    operatorHeader: o.operatorHeader,
    accessToken,
    logger: o.logger,
  });
  try {
    const server = await listen(app, address.host, address.port);
    return {
      url: server.url,
      close: async () => {
        await server.close();
        await source.close();
      },
    };
  } catch (error) {
    await source.close();
    throw error;
  }
}
