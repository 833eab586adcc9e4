// The hooks follow the application's registrations as they come and go: the tracer and the
// instruments they keep between calls are the registered ones, never a stale copy.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { metrics, trace } from '@opentelemetry/api';
import { registerTestSdk, type TestSdk } from './otel-sdk.js';
import { activeTracer } from '../../src/telemetry/otel.js';
import { meters } from '../../src/telemetry/metrics.js';
import { inSpan } from '../../src/telemetry/span.js';

describe('telemetry registrations', () => {
  let sdk: TestSdk | undefined;
  afterEach(async () => {
    await sdk?.shutdown();
    sdk = undefined;
  });

  it('records to the SDK registered now: none, one, none again, another', async () => {
    assert.equal(activeTracer(), undefined);
    assert.equal(meters(), undefined, 'no meter provider: no instruments to feed');
    await inSpan('before', {}, () => Promise.resolve());

    const first = registerTestSdk();
    sdk = first;
    assert.ok(activeTracer());
    assert.ok(meters());
    await inSpan('with the first', {}, () => Promise.resolve());
    await first.shutdown();
    sdk = undefined;
    assert.equal(activeTracer(), undefined, 'after trace.disable() no tracer is kept');
    assert.equal(meters(), undefined);
    await inSpan('between', {}, () => Promise.resolve());

    const second = registerTestSdk();
    sdk = second;
    await inSpan('with the second', {}, () => Promise.resolve());
    assert.deepEqual(
      second.spans().map((s) => s.name),
      ['with the second'],
    );
    assert.equal(trace.getTracerProvider().constructor.name, 'ProxyTracerProvider');
    assert.ok(metrics.getMeterProvider());
  });
});
