/** The review page's HTTP server: the app of app.ts on a node:http server (@hono/node-server). */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';

export interface RunningServer {
  /** http://host:port/ as it listens (the port chosen when 0 was asked). */
  url: string;
  close(): Promise<void>;
}

export function listen(app: Hono, host: string, port: number): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
      const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${shownHost}:${info.port}/`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      });
    });
    server.once('error', reject);
  });
}
