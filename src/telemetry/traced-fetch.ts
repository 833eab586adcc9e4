import { urlAttributes } from './attributes.js';
import { activeTracer } from './otel.js';
import { injectTraceHeaders } from './propagation.js';
import { inSpan } from './span.js';

/**
 * Wraps `base` so that, with an OpenTelemetry SDK registered, every request is an HTTP client
 * span (`POST`, `GET`; `http.request.method`, `server.address`, `server.port`, `url.full` without
 * userinfo or query, `http.response.status_code`) and carries W3C `traceparent`/`tracestate`
 * naming that span. Without an SDK it calls `base` as is. Headers and bodies are never recorded.
 */
export function tracedFetch(base: typeof fetch): typeof fetch {
  return (input, init) => {
    if (activeTracer() === undefined) return base(input, init);
    const request = input instanceof Request ? input : undefined;
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    return inSpan(
      method,
      () => ({ kind: 'client', attributes: { 'http.request.method': method, ...urlAttributes(url) } }),
      async (span) => {
        const headers = new Headers(init?.headers ?? request?.headers);
        injectTraceHeaders(headers);
        const response = await base(input, { ...init, headers });
        span.set('http.response.status_code', response.status);
        if (response.status >= 400) span.fail(String(response.status));
        return response;
      },
    );
  };
}

/**
 * Wraps `base` so that, with an OpenTelemetry SDK registered, every request carries W3C
 * `traceparent`/`tracestate` naming the span active when it is sent (AdcpClient: the attempt's
 * MCP or JSON-RPC client span, which already times the request, so no HTTP span is added). Without
 * an SDK it calls `base` as is.
 */
export function propagatingFetch(base: typeof fetch): typeof fetch {
  return (input, init) => {
    if (activeTracer() === undefined) return base(input, init);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    injectTraceHeaders(headers);
    return base(input, { ...init, headers });
  };
}
