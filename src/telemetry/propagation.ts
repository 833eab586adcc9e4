import type { Context, TextMapGetter, TextMapSetter } from '@opentelemetry/api';
import { activeTracer, otelApi } from './otel.js';

/** Incoming headers as `node:http` or fetch gives them. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * Writes W3C `traceparent` (and `tracestate`) for the active span into `headers`, then lets the
 * application's registered propagator add its own (baggage, vendor formats). Writing the W3C pair
 * directly keeps propagation on when an SDK is registered without a propagator.
 */
export function injectTraceHeaders(headers: Headers): void {
  const api = otelApi();
  if (api === undefined) return;
  const active = api.context.active();
  const spanContext = api.trace.getSpanContext(active);
  if (spanContext === undefined || !api.isSpanContextValid(spanContext)) return;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  headers.set('traceparent', `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`);
  const state = spanContext.traceState?.serialize();
  if (state !== undefined && state !== '') headers.set('tracestate', state);
  else if (headers.has('tracestate')) headers.delete('tracestate');
  api.propagation.inject(active, headers, setter);
}

const setter: TextMapSetter<Headers> = { set: (carrier, key, value) => carrier.set(key, value) };

const getter: TextMapGetter<HeaderSource> = {
  keys: (carrier) => (carrier instanceof Headers ? [...carrier.keys()] : Object.keys(carrier)),
  get: (carrier, key) => {
    if (carrier instanceof Headers) return carrier.get(key) ?? undefined;
    return carrier[key.toLowerCase()];
  },
};

/**
 * The context a server or webhook receiver continues: the caller's W3C trace context (and
 * whatever the registered propagator reads) as the parent of the spans it opens. `undefined`
 * without an SDK, or when the caller sent none (then the spans start a trace of their own).
 */
export function extractTraceContext(headers: HeaderSource): Context | undefined {
  if (activeTracer() === undefined) return undefined;
  const api = otelApi();
  if (api === undefined) return undefined;
  const base = api.ROOT_CONTEXT;
  const extracted = api.propagation.extract(base, headers, getter);
  if (api.trace.getSpanContext(extracted) !== undefined) return extracted;
  const header = first(getter.get(headers, 'traceparent'));
  const match = header === undefined ? null : TRACEPARENT.exec(header.trim());
  if (match === null) return undefined;
  const [, version, traceId = '', spanId = '', flags = '00', rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  const spanContext = { traceId, spanId, traceFlags: Number.parseInt(flags, 16) & 1, isRemote: true };
  if (!api.isSpanContextValid(spanContext)) return undefined;
  const state = first(getter.get(headers, 'tracestate'));
  return api.trace.setSpanContext(
    base,
    state === undefined ? spanContext : { ...spanContext, traceState: api.createTraceState(state) },
  );
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}
