/**
 * The fetch for the SDK's Streamable HTTP transport, without its standalone GET stream. After
 * `initialize` the SDK opens a GET stream for messages the server sends on its own (the 2025
 * transport: the client MAY open one). AdcpClient declares no client capabilities (no sampling,
 * elicitation or roots to be asked for) and needs no such notification: every answer, and its
 * progress, comes on the POST that asked. So that GET is answered here, without a request, with
 * the 405 of a server that offers no such stream, which the SDK takes as "none offered". A GET
 * carrying `Last-Event-ID` (resuming a POST's broken answer stream) is sent as always.
 *
 * Not sending it saves a request, a held-open stream on the server and the client's reading of
 * it before the first call's answer (bench/first-answer.bench.ts).
 */
export function withoutListenStream(base: typeof fetch): typeof fetch {
  return (input, init) => {
    if ((init?.method ?? 'GET').toUpperCase() === 'GET' && !hasHeader(init?.headers, 'last-event-id')) {
      return Promise.resolve(new Response(null, { status: 405, statusText: 'Method Not Allowed' }));
    }
    return base(input, init);
  };
}

function hasHeader(headers: RequestInit['headers'], name: string): boolean {
  if (headers === undefined) return false;
  if (headers instanceof Headers) return headers.has(name);
  if (Array.isArray(headers)) return headers.some(([key]) => key?.toLowerCase() === name);
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}
