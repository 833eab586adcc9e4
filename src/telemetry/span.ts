import type { Context, Span, SpanKind as OtelSpanKind } from '@opentelemetry/api';
import { activeTracer, otelApi } from './otel.js';

export type AttributeValue = string | number | boolean;

/** What instrumented code may do with its span; the no-SDK span does nothing. */
export interface TelemetrySpan {
  /** Sets one attribute; `undefined` is skipped. */
  set(key: string, value: AttributeValue | undefined): void;
  /** Adds a timestamped event with a few attributes. */
  event(name: string, attributes?: Record<string, AttributeValue | undefined>): void;
  /** Marks the span failed with `errorType` (a code, never a message: messages may hold seller text or URLs). */
  fail(errorType: string): void;
  /** True when a real span is recording (worth computing attributes for). */
  readonly recording: boolean;
}

export const NOOP_SPAN: TelemetrySpan = Object.freeze({
  set() {},
  event() {},
  fail() {},
  recording: false,
});

export type SpanKindName = 'internal' | 'client' | 'server' | 'producer' | 'consumer';

const KINDS: Record<SpanKindName, OtelSpanKind> = { internal: 0, server: 1, client: 2, producer: 3, consumer: 4 };

export interface SpanOptions {
  kind?: SpanKindName;
  attributes?: Record<string, AttributeValue | undefined>;
  /** Parent context (a trace continued from incoming headers); the active context otherwise. */
  parent?: Context;
}

/**
 * Runs `fn` inside a span named `name` that ends when `fn` settles (a throw marks it failed with
 * the error's `code` or name). Without a registered OpenTelemetry SDK this is `fn(NOOP_SPAN)`:
 * no span, no context switch, and `spanOptions`, when a function, is never called.
 */
export function inSpan<T>(
  name: string,
  spanOptions: SpanOptions | (() => SpanOptions),
  fn: (span: TelemetrySpan) => Promise<T>,
): Promise<T> {
  const tracer = activeTracer();
  const api = tracer === undefined ? undefined : otelApi();
  if (tracer === undefined || api === undefined) return fn(NOOP_SPAN);
  const options = typeof spanOptions === 'function' ? spanOptions() : spanOptions;
  const parent = options.parent ?? api.context.active();
  const span = tracer.startSpan(
    name,
    { kind: KINDS[options.kind ?? 'internal'], attributes: defined(options.attributes) },
    parent,
  );
  return api.context.with(api.trace.setSpan(parent, span), runInSpan<T>, undefined, span, fn);
}

function runInSpan<T>(span: Span, fn: (span: TelemetrySpan) => Promise<T>): Promise<T> {
  const handle = new SpanHandle(span);
  let pending: Promise<T>;
  try {
    pending = fn(handle);
  } catch (error) {
    return Promise.reject(endFailed(handle, span, error));
  }
  return pending.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      throw endFailed(handle, span, error);
    },
  );
}

/** Marks the span failed with the error's type, ends it, and hands the error back to rethrow. */
function endFailed(handle: SpanHandle, span: Span, error: unknown): unknown {
  handle.fail(errorTypeOf(error));
  span.end();
  return error;
}

/** Adds an event to the span active now (store operations, replays), if one is recording. */
export function addActiveEvent(name: string, attributes?: Record<string, AttributeValue | undefined>): void {
  if (activeTracer() === undefined) return;
  const span = otelApi()?.trace.getActiveSpan();
  if (span?.isRecording() === true) span.addEvent(name, defined(attributes));
}

/** A recording span as instrumented code sees it (a class: no closures per span). */
class SpanHandle implements TelemetrySpan {
  readonly recording = true;
  readonly #span: Span;
  constructor(span: Span) {
    this.#span = span;
  }
  set(key: string, value: AttributeValue | undefined): void {
    if (value !== undefined) this.#span.setAttribute(key, value);
  }
  event(name: string, attributes?: Record<string, AttributeValue | undefined>): void {
    this.#span.addEvent(name, defined(attributes));
  }
  fail(errorType: string): void {
    this.#span.setAttribute('error.type', errorType);
    this.#span.setStatus({ code: 2, message: errorType });
  }
}

/** `attributes` without its `undefined` values (which OpenTelemetry does not take). */
function defined(attributes: Record<string, AttributeValue | undefined> | undefined): Record<string, AttributeValue> {
  if (attributes === undefined) return {};
  let clean = true;
  for (const key in attributes) if (attributes[key] === undefined) clean = false;
  // The SDK copies what it is given: a set without `undefined` goes as it is.
  if (clean) return attributes as Record<string, AttributeValue>;
  const out: Record<string, AttributeValue> = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** `error.type` for a thrown value: its string `code` (AdcpWireError), else its class name. */
export function errorTypeOf(error: unknown): string {
  if (error !== null && typeof error === 'object') {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(code)) return code;
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(name)) return name;
  }
  return '_OTHER';
}
