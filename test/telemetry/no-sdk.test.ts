import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ProxyTracer, trace } from '@opentelemetry/api';
import { AdcpClient } from '../../src/client/index.js';
import { setOtelApiForTests } from '../../src/telemetry/otel.js';
import { inSpan, NOOP_SPAN } from '../../src/telemetry/span.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';

describe('telemetry without an OpenTelemetry SDK', () => {
  let seller: ReferenceSeller;
  const started: string[] = [];
  type Method = (this: ProxyTracer, ...args: unknown[]) => unknown;
  const proto = ProxyTracer.prototype as unknown as Record<'startSpan' | 'startActiveSpan', Method>;
  const original = { startSpan: proto.startSpan, startActive: proto.startActiveSpan };

  before(async () => {
    // Any span asked of the API's no-SDK tracer is counted, recording or not.
    proto.startSpan = function (...args) {
      started.push(String(args[0]));
      return original.startSpan.apply(this, args);
    };
    proto.startActiveSpan = function (...args) {
      started.push(String(args[0]));
      return original.startActive.apply(this, args);
    };
    seller = await startReferenceSeller({ timings: { workingAfterMs: 10, completeAfterMs: 40 } });
  });
  after(async () => {
    proto.startSpan = original.startSpan;
    proto.startActiveSpan = original.startActive;
    setOtelApiForTests(undefined);
    await seller.close();
  });

  const callOnce = async (protocol: 'mcp' | 'a2a') => {
    const sent: Headers[] = [];
    const client = new AdcpClient({
      url: protocol === 'mcp' ? seller.mcpUrl : seller.url,
      protocol,
      timeoutMs: 20_000,
      fetch: (input, init) => {
        sent.push(new Headers(init?.headers));
        return fetch(input, init);
      },
    });
    try {
      const result = await client.call('get_products', { buying_mode: 'brief', brief: 'news' });
      assert.equal(result.status, 'completed');
    } finally {
      await client.close();
    }
    return sent;
  };

  it('starts no span, not even a non-recording one, and sends no traceparent', async () => {
    assert.equal(trace.getTracerProvider().constructor.name, 'ProxyTracerProvider');
    for (const protocol of ['mcp', 'a2a'] as const) {
      const sent = await callOnce(protocol);
      assert.ok(sent.length >= 1);
      assert.ok(sent.every((h) => !h.has('traceparent')));
    }
    assert.deepEqual(started, []);
  });

  it('hands instrumented code the shared no-op span', async () => {
    const seen = await inSpan(
      'x',
      () => assert.fail('span options are not computed without an SDK'),
      async (span) => span,
    );
    assert.equal(seen, NOOP_SPAN);
  });

  it('works when @opentelemetry/api is not installed', async () => {
    setOtelApiForTests(null);
    const sent = await callOnce('mcp');
    assert.ok(sent.every((h) => !h.has('traceparent')));
    assert.deepEqual(started, []);
  });
});
