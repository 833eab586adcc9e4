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
  if (tracer === undefined) return fn(NOOP_SPAN);
  const api = otelApi();
  if (api === undefined) return fn(NOOP_SPAN);
  const options = typeof spanOptions === 'function' ? spanOptions() : spanOptions;
  const attributes: Record<string, AttributeValue> = {};
  for (const [key, value] of Object.entries(options.attributes ?? {})) if (value !== undefined) attributes[key] = value;
  const parent = options.parent ?? api.context.active();
  const span = tracer.startSpan(name, { kind: KINDS[options.kind ?? 'internal'], attributes }, parent);
  const wrapped = wrapSpan(span);
  return api.context.with(api.trace.setSpan(parent, span), async () => {
    try {
      return await fn(wrapped);
    } catch (error) {
      wrapped.fail(errorTypeOf(error));
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Adds an event to the span active now (store operations, replays), if one is recording. */
export function addActiveEvent(name: string, attributes?: Record<string, AttributeValue | undefined>): void {
  if (activeTracer() === undefined) return;
  const span = otelApi()?.trace.getActiveSpan();
  if (span?.isRecording() === true) wrapSpan(span).event(name, attributes);
}

function wrapSpan(span: Span): TelemetrySpan {
  return {
    recording: true,
    set(key, value) {
      if (value !== undefined) span.setAttribute(key, value);
    },
    event(name, attributes = {}) {
      const clean: Record<string, AttributeValue> = {};
      for (const [key, value] of Object.entries(attributes)) if (value !== undefined) clean[key] = value;
      span.addEvent(name, clean);
    },
    fail(errorType) {
      span.setAttribute('error.type', errorType);
      span.setStatus({ code: 2, message: errorType });
    },
  };
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
