import type { IncomingMessage } from 'node:http';
import { readNodeBody } from '../../transport/read-node-body.js';

/** Host names a loopback listener accepts (DNS-rebinding protection). */
export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1'] as const;

/** True for a loopback listen address. */
export function isLoopbackAddress(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function hostnameOf(value: string): string | undefined {
  try {
    return new URL(`http://${value}`).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Whether a `Host` value names this loopback listener: a loopback name (`LOOPBACK_HOSTS`) with the
 * listener's port (80 when the value has none). Another port on loopback is another server.
 */
export function isLoopbackHostAt(host: string, port: number): boolean {
  let url: URL;
  try {
    url = new URL(`http://${host}`);
  } catch {
    return false;
  }
  const name = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (LOOPBACK_HOSTS as readonly string[]).includes(name) && Number(url.port || '80') === port;
}

/**
 * Refuses a request whose `Host`, or `Origin` when present, names a host outside `allowed`
 * (a DNS-rebinding page reaches a loopback server with a foreign Host/Origin); with `loopbackPort`,
 * a loopback name in `Host` must also carry that port (another port is another server on this
 * machine), unless the `Host` is exactly `publicHost`, the authority of the seller's public URL
 * (a same-host proxy in front passes it through). Returns the reason, or undefined when the
 * request may pass. `allowed` undefined lets every host through.
 */
export function checkHostAndOrigin(
  req: IncomingMessage,
  allowed: ReadonlySet<string> | undefined,
  loopbackPort?: number,
  publicHost?: string,
): string | undefined {
  if (allowed === undefined) return undefined;
  const host = req.headers.host;
  const hostname = typeof host === 'string' ? hostnameOf(host) : undefined;
  if (hostname === undefined || !allowed.has(hostname)) return 'Host not allowed';
  if (
    loopbackPort !== undefined &&
    (host as string).toLowerCase() !== publicHost &&
    (LOOPBACK_HOSTS as readonly string[]).includes(hostname) &&
    !isLoopbackHostAt(host as string, loopbackPort)
  ) {
    return 'Host not allowed';
  }
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let originHost: string | undefined;
    try {
      originHost = new URL(origin).hostname.replace(/^\[|\]$/g, '').toLowerCase();
    } catch {
      originHost = undefined;
    }
    if (originHost === undefined || !allowed.has(originHost)) return 'Origin not allowed';
  }
  return undefined;
}

export type BodyRead =
  { ok: true; text: string; bytes: Buffer } | { ok: false; reason: 'too_large' | 'invalid_utf8' | 'aborted' };

/** Refuses malformed UTF-8 instead of replacing it with U+FFFD; keeps a BOM (JSON then refuses it). */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads a request body up to `maxBytes`: a declared Content-Length over it is refused from the
 * header, before any byte is read; a body that grows over it stops being buffered at once; bytes
 * that are not well-formed UTF-8 are refused (`invalid_utf8`), never replaced.
 */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  let bytes: Buffer | 'too_large';
  try {
    bytes = await readNodeBody(req, maxBytes);
  } catch {
    return { ok: false, reason: 'aborted' };
  }
  if (bytes === 'too_large') return { ok: false, reason: 'too_large' };
  try {
    return { ok: true, text: utf8.decode(bytes), bytes };
  } catch {
    return { ok: false, reason: 'invalid_utf8' };
  }
}

/**
 * True for `application/json`, with no parameter but `charset=utf-8` (JSON is UTF-8, RFC 8259).
 * Anything else (`text/plain`, forms, multipart: what a cross-site page can POST without a
 * preflight) is refused before the body is read.
 */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [type, ...params] = header.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return params.every((param) => param === '' || /^charset="?utf-8"?$/.test(param));
}

/** Whether the request carries RFC 9421 signature headers (either one: a lone one is malformed). */
export function hasSignature(req: IncomingMessage): boolean {
  return req.headers['signature'] !== undefined || req.headers['signature-input'] !== undefined;
}

/**
 * Whether a single-valued header arrived as several field values: repeated lines (Node keeps only
 * the first in `headers`) or one line joined by commas.
 */
export function hasSeveralValues(req: IncomingMessage, name: string): boolean {
  const values = req.headersDistinct[name] ?? [];
  return values.length > 1 || values.some((value) => value.includes(','));
}

/**
 * The origin (`https://seller.example`) that cards advertise, from the `publicUrl` option: http or
 * https, no userinfo, query or fragment, no path but `/`. Throws RangeError otherwise.
 */
export function publicOriginOf(publicUrl: string): string {
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    throw new RangeError(`createAdcpServer: publicUrl is not a URL: pass an origin like https://seller.example`);
  }
  const plain = url.username === '' && url.password === '' && url.search === '' && url.hash === '';
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !plain || url.pathname !== '/') {
    throw new RangeError('createAdcpServer: publicUrl must be an http(s) origin like https://seller.example');
  }
  return url.origin;
}
