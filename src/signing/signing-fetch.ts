import { checkRequestSigningOptions, createRequestSigner, type RequestSigningOptions } from './sign-request.js';

/**
 * A fetch that signs every POST it sends (each MCP and A2A JSON-RPC request) under the AdCP
 * request profile, over the exact body bytes it sends. Other methods (the SSE GET stream, agent
 * and server cards, session DELETE) go out unsigned. Options are checked and read once, here.
 */
export function createSigningFetch(base: typeof fetch, options: RequestSigningOptions): typeof fetch {
  checkRequestSigningOptions(options);
  const signer = createRequestSigner(options);
  const send = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
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
    const url = typeof input === 'string' ? input : input.href;
    const given = init?.headers;
    if (given === undefined || isPlainRecord(given)) {
      // The transports pass a plain record: the signed headers replace any spelling of theirs.
      const signed = signer(given === undefined ? { method, url, body } : { method, url, headers: given, body });
      const headers: Record<string, string> = {};
      for (const name in given) if (!Object.hasOwn(signed, name.toLowerCase())) headers[name] = given[name] as string;
      return base(input, { ...init, headers: Object.assign(headers, signed), body });
    }
    const headers = new Headers(given);
    for (const [name, value] of Object.entries(signer({ method, url, headers, body }))) headers.set(name, value);
    return base(input, { ...init, headers, body });
  };
  // Not an async function: the base's promise is handed back as is (an async wrapper would add its
  // own promise and two ticks per request); misuse still arrives as a rejection, never a throw.
  return (input, init) => {
    try {
      return send(input, init);
    } catch (error) {
      return Promise.reject(error);
    }
  };
}

function isPlainRecord(headers: NonNullable<RequestInit['headers']>): headers is Record<string, string> {
  return !(headers instanceof Headers) && !Array.isArray(headers) && !(Symbol.iterator in headers);
}
