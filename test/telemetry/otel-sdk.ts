// The OpenTelemetry SDK as an application registers it, with in-memory exporters, for tests.
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader, type MetricData } from '@opentelemetry/sdk-metrics';

class CollectingReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface TestSdk {
  spans(): ReadableSpan[];
  /** Every metric collected so far, by name. */
  metrics(): Promise<Map<string, MetricData>>;
  reset(): void;
  shutdown(): Promise<void>;
}

/** Registers a tracer provider, a meter provider and the async-hooks context manager globally. */
export function registerTestSdk(): TestSdk {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    spans: () => exporter.getFinishedSpans(),
    async metrics() {
      const collected = await reader.collect();
      const out = new Map<string, MetricData>();
      for (const scope of collected.resourceMetrics.scopeMetrics)
        for (const metric of scope.metrics) out.set(metric.descriptor.name, metric);
      return out;
    },
    reset: () => exporter.reset(),
    async shutdown() {
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
      await provider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** The value of attribute `key` on `span`. */
export function attr(span: ReadableSpan, key: string): unknown {
  return span.attributes[key];
}

/** The parent span id of `span` (SDK 2.x: `parentSpanContext`). */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
