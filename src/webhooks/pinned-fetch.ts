import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isSpecialUseAddress } from '../core/special-use-address.js';

/** Resolves a host name to its addresses (the system resolver by default; tests inject one). */
export type ResolveHost = (hostname: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

/** The destination's name resolved to an address the seller must not call (DNS rebinding, internal names). */
export class UnsafeDestinationError extends Error {
  override readonly name = 'UnsafeDestinationError';
}

export interface PinnedFetchOptions {
  resolve?: ResolveHost;
  /** Accept special-use answers (loopback tests and local demos only). */
  allowSpecialUse?: boolean;
}

const systemResolve: ResolveHost = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * A `fetch` for the webhook emitter that resolves the destination's host name once per
 * connection, refuses it when any answer is a special-use address (loopback, private, metadata,
 * NAT64 or mapped forms of those...), and connects to the very address it checked: the socket's
 * `lookup` is the check, so a name that re-resolves elsewhere between check and connect (DNS
 * rebinding) never reaches an internal address. TLS still verifies the certificate for the
 * name. Redirects are not followed; the body is not read (the emitter needs only the status and
 * headers).
 */
export function createPinnedFetch(options: PinnedFetchOptions = {}): typeof fetch {
  const resolve = options.resolve ?? systemResolve;
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (answers) => {
        const refused = answers.find((a) => isSpecialUseAddress(a.address));
        if (answers.length === 0) return callback(notFound(hostname), '', 0);
        if (refused !== undefined && options.allowSpecialUse !== true) {
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
        response.resume(); // drained, never kept
        resolvePromise(new Response(null, { status: response.statusCode ?? 502, headers: toHeaders(response) }));
      });
      request.end(typeof init.body === 'string' ? init.body : undefined);
    });
  };
  return pinnedFetch;
}

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
