import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import type { OutboundReach } from '../core/outbound-url.js';
import { isLoopbackIp, isSpecialUseAddress } from '../core/special-use-address.js';

/** Resolves a host name to its addresses (the system resolver by default; tests inject one). */
export type ResolveHost = (hostname: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

/** The destination's name resolved to an address the seller must not call (DNS rebinding, internal names). */
export class UnsafeDestinationError extends Error {
  override readonly name = 'UnsafeDestinationError';
}

export interface PinnedFetchOptions {
  resolve?: ResolveHost;
  /**
   * Which answers are accepted (`checkOutboundUrl`'s reach): `public` (default) refuses every
   * special-use answer, `loopback` accepts loopback answers too (local tests and demos), `any`
   * accepts all (tests only).
   */
  reach?: OutboundReach;
}

const systemResolve: ResolveHost = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * A `fetch` for URLs a counterparty chose (webhook deliveries, brand.json, `jwks_uri`) that
 * resolves the destination's host name once per connection, refuses it when any answer is a
 * special-use address (loopback, private, metadata, NAT64 or mapped forms of those...), and
 * connects to the very address it checked: the socket's `lookup` is the check, so a name that
 * re-resolves elsewhere between check and connect (DNS rebinding) never reaches an internal
 * address. TLS still verifies the certificate for the name. Redirects are not followed; the
 * caller caps the body it reads (and cancels what it does not).
 */
export function createPinnedFetch(options: PinnedFetchOptions = {}): typeof fetch {
  const resolve = options.resolve ?? systemResolve;
  const reach = options.reach ?? 'public';
  const refuses = (address: string): boolean =>
    reach !== 'any' && isSpecialUseAddress(address) && !(reach === 'loopback' && isLoopbackIp(address));
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (answers) => {
        const refused = answers.find((a) => refuses(a.address));
        if (answers.length === 0) return callback(notFound(hostname), '', 0);
        if (refused !== undefined) {
          const error = new UnsafeDestinationError(`${hostname} resolves to ${refused.address}, a special-use address`);
          return callback(error, '', 0);
        }
        const chosen = answers[0]!;
        if (lookupOptions.all === true) return callback(null, [chosen]);
        return callback(null, chosen.address, chosen.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
  const pinnedFetch = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Response>((resolvePromise, reject) => {
      const request = send(url, {
        method: init.method ?? 'GET',
        headers: plainHeaders(init.headers),
        lookup,
        ...(init.signal === undefined || init.signal === null ? {} : { signal: init.signal }),
      });
      request.on('error', reject);
      request.on('response', (response: IncomingMessage) => {
        const status = response.statusCode ?? 502;
        const headers = toHeaders(response);
        if (status < 200 || status > 599) {
          response.destroy();
          reject(new Error(`HTTP status ${status} out of range`));
          return;
        }
        if (NULL_BODY_STATUSES.has(status) || (init.method ?? 'GET') === 'HEAD') {
          response.resume();
          resolvePromise(new Response(null, { status, headers }));
          return;
        }
        const body = Readable.toWeb(response) as ReadableStream<Uint8Array>;
        resolvePromise(new Response(body, { status, headers }));
      });
      request.end(typeof init.body === 'string' ? init.body : undefined);
    });
  };
  return pinnedFetch;
}

/** Statuses a `Response` may not carry a body with. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

function plainHeaders(init: ConstructorParameters<typeof Headers>[0]): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init).forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

function toHeaders(response: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
}
