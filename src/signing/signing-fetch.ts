import { checkRequestSigningOptions, signRequest, type RequestSigningOptions } from './sign-request.js';

/**
 * A fetch that signs every POST it sends (each MCP and A2A JSON-RPC request) under the AdCP
 * request profile, over the exact body bytes it sends. Other methods (the SSE GET stream, agent
 * and server cards, session DELETE) go out unsigned. Options are checked once, here.
 */
export function createSigningFetch(base: typeof fetch, options: RequestSigningOptions): typeof fetch {
  checkRequestSigningOptions(options);
  const signingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    if (method !== 'POST') return base(input, init);
    if (input instanceof Request) {
      // Never produced by the library's transports; signing one would mean buffering its stream.
      throw new TypeError('signing fetch: pass (url, init) with a string body, not a Request');
    }
    const body = init?.body ?? '';
    if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
      throw new TypeError('signing fetch: the body must be a string or bytes to be signed');
    }
    const headers = new Headers(init?.headers);
    const url = typeof input === 'string' ? input : input.href;
    for (const [name, value] of Object.entries(signRequest({ method, url, headers, body }, options))) {
      headers.set(name, value);
    }
    return base(input, { ...init, headers, body });
  };
  return signingFetch;
}
