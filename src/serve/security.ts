/**
 * The page's safety rules: where it may listen, who may open it, that every POST comes from one
 * of its own forms, and the response headers that keep a partner's text inert.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { UserError } from '../errors.js';

/** No script at all, our own stylesheet, forms only to ourselves, never framed. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export interface ListenAddress {
  host: string;
  port: number;
  loopback: boolean;
}

/** `host:port`, `[v6]:port` or `port` (on 127.0.0.1). */
export function parseListen(value: string): ListenAddress {
  const match =
    /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value) ?? (/^\d{1,5}$/.test(value) ? [value, undefined, '127.0.0.1', value] : null);
  const port = Number(match?.[3]);
  const host = match?.[1] ?? match?.[2] ?? '';
  if (match === null || host === '' || !(port >= 0 && port <= 65535))
    throw new UserError(`serve --listen ${value}: expected host:port (e.g. 127.0.0.1:8080) or [::1]:8080`);
  return { host, port, loopback: isLoopback(host) };
}

/** The host name a request's URL names (as its Host header gave it), without brackets or port. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return '';
  }
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || host.toLowerCase() === '::ffff:127.0.0.1';
}

/** A non-loopback address only with an access token: anyone on the network could read partners' data otherwise. */
export function checkListen(address: ListenAddress, hasToken: boolean): void {
  if (!address.loopback && !hasToken)
    throw new UserError(
      `serve --listen ${address.host}:${address.port}: not a loopback address; give --token-file (the token every browser must present) or listen on 127.0.0.1`,
    );
}

/** Compares two secrets in a time that does not depend on where they differ. */
export function sameSecret(given: string | null | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A fresh random token (CSRF, per server process). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The cookie that carries the access token after the first visit with ?token=. */
export const ACCESS_COOKIE = 'order_loader_access';

/** The access token from a request: `Authorization: Bearer …`, the cookie, or `?token=`. */
export function presentedToken(authorization: string | undefined, cookie: string | undefined, query: string | undefined): string | null {
  if (authorization?.startsWith('Bearer ') === true) return authorization.slice(7);
  return cookie ?? query ?? null;
}
