import { createRequire } from 'node:module';
import type * as OtelApi from '@opentelemetry/api';
import { ADCP_WIRE_PACKAGE } from '../transport/package-version.js';

/** The OpenTelemetry API module, when the application has it installed. */
export type Api = typeof OtelApi;

let loaded: Api | null | undefined;

/** Where `@opentelemetry/api` 1.x keeps whatever an application registered (its `global-utils`). */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

/**
 * `@opentelemetry/api`, loaded on first use and only if installed (it is an optional peer
 * dependency): `undefined` without it. The API keeps its registrations on a global, so this copy
 * sees the tracer and meter providers an application registered through its own import.
 *
 * Until the application registers something (a tracer or meter provider, a propagator, a context
 * manager), the API could only answer no-ops, so it is not loaded at all (its ~44 CommonJS modules
 * would cost a buyer's first call several milliseconds): the global is looked at again on each
 * use, and the API is loaded once it appears.
 */
export function otelApi(): Api | undefined {
  if (loaded === undefined) {
    if ((globalThis as Record<symbol, unknown>)[OTEL_GLOBAL] === undefined) return undefined;
    try {
      loaded = createRequire(import.meta.url)('@opentelemetry/api') as Api;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}

let installed: boolean | undefined;

/** Whether `@opentelemetry/api` is installed, found without loading it. */
export function otelInstalled(): boolean {
  if (loaded !== undefined) return loaded !== null;
  if (installed === undefined) {
    try {
      createRequire(import.meta.url).resolve('@opentelemetry/api');
      installed = true;
    } catch {
      installed = false;
    }
  }
  return installed;
}

/** Lets tests stand in for a missing `@opentelemetry/api` (`null`) or restore the real one (`undefined`). */
export function setOtelApiForTests(api: Api | null | undefined): void {
  loaded = api;
  tracerProvider = undefined;
  tracer = undefined;
}

let tracerProvider: OtelApi.TracerProvider | undefined;
let tracer: OtelApi.Tracer | undefined;

/**
 * The tracer of the registered SDK, or `undefined` when no tracer provider is registered: the
 * API's proxy answers `getDelegateTracer` with `undefined` until one is, so the no-SDK path
 * creates no span at all (not even a non-recording one).
 */
export function activeTracer(): OtelApi.Tracer | undefined {
  const api = otelApi();
  if (api === undefined) return undefined;
  const provider = api.trace.getTracerProvider();
  // The API's proxy takes one delegate for its life (registering again is refused; disable()
  // makes a new proxy), so the tracer found for a provider is kept while it stays the global one.
  if (provider === tracerProvider) return tracer;
  const proxy = provider as OtelApi.TracerProvider & {
    getDelegateTracer?: (name: string, version?: string) => OtelApi.Tracer | undefined;
  };
  const found =
    typeof proxy.getDelegateTracer === 'function'
      ? proxy.getDelegateTracer(ADCP_WIRE_PACKAGE.name, ADCP_WIRE_PACKAGE.version)
      : provider.getTracer(ADCP_WIRE_PACKAGE.name, ADCP_WIRE_PACKAGE.version);
  if (found !== undefined) {
    tracerProvider = provider;
    tracer = found;
  }
  return found;
}

/** The trace id of the span active now, when an SDK is recording one. */
export function activeTraceId(): string | undefined {
  if (activeTracer() === undefined) return undefined;
  const context = otelApi()?.trace.getActiveSpan()?.spanContext();
  return context === undefined || context.traceId === '00000000000000000000000000000000' ? undefined : context.traceId;
}
