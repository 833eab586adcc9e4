import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/index.js';
import type { ActivityEvent } from '../../src/telemetry/activity.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { attr, parentOf, registerTestSdk, type TestSdk } from './otel-sdk.js';

describe('AdcpClient with an OpenTelemetry SDK registered', () => {
  let seller: ReferenceSeller;
  let sdk: TestSdk;
  const clients: AdcpClient[] = [];
  const sent: Headers[] = [];
  const fastClock = { sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, Math.min(ms, 20))) };

  before(async () => {
    sdk = registerTestSdk();
    seller = await startReferenceSeller({ timings: { workingAfterMs: 10, completeAfterMs: 40 } });
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await seller.close();
    await sdk.shutdown();
  });
  beforeEach(() => {
    sdk.reset();
    sent.length = 0;
  });

  const open = (protocol: 'mcp' | 'a2a', onActivity?: (event: ActivityEvent) => void) => {
    const client = new AdcpClient({
      url: protocol === 'mcp' ? seller.mcpUrl : seller.url,
      protocol,
      clock: fastClock,
      timeoutMs: 20_000,
      auth: 'planted-bearer-token-0123456789',
      fetch: (input, init) => {
        sent.push(new Headers(init?.headers));
        return fetch(input, init);
      },
      ...(onActivity === undefined ? {} : { onActivity }),
    });
    clients.push(client);
    return client;
  };

  for (const protocol of ['mcp', 'a2a'] as const) {
    it(`traces one call as adcp.call > attempt spans, with traceparent naming the attempt on every request (${protocol})`, async () => {
      const result = await open(protocol).call('get_products', { buying_mode: 'brief', brief: 'podcast audio' });
      assert.equal(result.status, 'completed');
      const spans = sdk.spans();
      const call = spans.find((s) => s.name === 'adcp.call get_products');
      assert.ok(call, `no call span in ${spans.map((s) => s.name).join(', ')}`);
      assert.equal(attr(call, 'adcp.tool'), 'get_products');
      assert.equal(attr(call, 'adcp.status'), 'completed');
      assert.equal(attr(call, 'adcp.protocol'), protocol);
      const attemptName = protocol === 'mcp' ? 'tools/call get_products' : 'SendMessage get_products';
      const attempt = spans.find((s) => s.name === attemptName && s.kind === 2);
      assert.ok(attempt, `no attempt span in ${spans.map((s) => s.name).join(', ')}`);
      assert.equal(parentOf(attempt), call.spanContext().spanId);
      assert.equal(attr(attempt, 'adcp.attempt'), 1);
      assert.equal(attr(attempt, 'gen_ai.tool.name'), 'get_products');
      if (protocol === 'mcp') {
        assert.equal(attr(attempt, 'mcp.method.name'), 'tools/call');
        // The era probe, sent as the transport is made (before the attempt): a client span of its own.
        const probe = spans.find((s) => s.name === 'server/discover' && s.kind === 2);
        assert.ok(probe, `no probe span in ${spans.map((s) => s.name).join(', ')}`);
        assert.equal(parentOf(probe), call.spanContext().spanId);
        assert.equal(attr(probe, 'mcp.method.name'), 'server/discover');
      } else assert.equal(attr(attempt, 'rpc.system.name'), 'jsonrpc');
      assert.equal(attr(attempt, 'server.address'), '127.0.0.1');
      // The attempt is the client span of its requests: no HTTP span duplicates it.
      assert.ok(!spans.some((s) => s.kind === 2 && s.name === 'POST' && parentOf(s) === attempt.spanContext().spanId));
      // Every request the call made names a span of the call's trace.
      const traceId = call.spanContext().traceId;
      const posts = sent.filter((h) => h.get('content-type')?.includes('json') === true);
      assert.ok(posts.length >= 1);
      for (const headers of sent) {
        const parent = headers.get('traceparent');
        assert.match(parent ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
        const [, trace, span] = (parent ?? '').split('-');
        if (trace !== traceId) continue; // transport setup (card, initialize) made outside the call
        assert.ok(
          spans.some(
            (s) => s.spanContext().spanId === span && s.kind === 2 && parentOf(s) === call.spanContext().spanId,
          ),
          'traceparent names the attempt span',
        );
      }
      assert.ok(sent.some((h) => h.get('traceparent')?.split('-')[1] === traceId));
    });
  }

  it('traces waitFor with one span per poll, counts polls and reports status changes (a2a)', async () => {
    const events: ActivityEvent[] = [];
    const client = open('a2a', (event) => events.push(event));
    const submitted = await client.call('create_media_buy', mediaBuyRequest([packageRequest('display_news', 10)]));
    assert.equal(submitted.status, 'submitted');
    const final = await client.waitFor(submitted, { timeoutMs: 15_000, pollIntervalMs: 10 });
    assert.equal(final.status, 'completed');
    const spans = sdk.spans();
    const wait = spans.find((s) => s.name === 'adcp.wait_for');
    assert.ok(wait);
    assert.equal(attr(wait, 'adcp.status'), 'completed');
    assert.equal(attr(wait, 'adcp.task_id'), submitted.taskId);
    const polls = spans.filter((s) => attr(s, 'adcp.poll') === true);
    assert.ok(polls.length >= 1, 'one span per poll');
    for (const poll of polls) assert.equal(poll.spanContext().traceId, wait.spanContext().traceId);
    const collected = await sdk.metrics();
    assert.ok(collected.has('adcp.client.polls'));
    assert.ok(collected.has('adcp.client.time_to_final'));
    // Calls are counted by the duration histogram (its count), as the HTTP and MCP semantic
    // conventions do, with no separate counter beside it.
    assert.ok(!collected.has('adcp.client.calls'));
    const durations = collected.get('adcp.client.call.duration')?.dataPoints ?? [];
    const submittedCalls = durations.filter(
      (p) => p.attributes['adcp.tool'] === 'create_media_buy' && p.attributes['adcp.status'] === 'submitted',
    );
    assert.equal(submittedCalls.length, 1);
    assert.equal((submittedCalls[0]?.value as { count?: number } | undefined)?.count, 1);
    const requests = events.filter((e) => e.type === 'request');
    assert.ok(requests.some((e) => e.type === 'request' && e.tool === 'create_media_buy' && e.attempt === 1));
    assert.ok(requests.some((e) => e.type === 'request' && e.poll === true));
    const changes = events.filter((e) => e.type === 'status_change');
    assert.equal(changes.at(-1)?.type === 'status_change' ? changes.at(-1)?.status : undefined, 'completed');
    for (const event of events) assert.match(event.traceId ?? '', /^[0-9a-f]{32}$/);
  });

  it('traces discover as one adcp.discover span', async () => {
    await open('mcp').discover();
    const spans = sdk.spans();
    const discover = spans.find((s) => s.name === 'adcp.discover');
    assert.ok(discover);
    assert.ok(
      spans.some((s) => s.name === 'adcp.call get_adcp_capabilities' && parentOf(s) === discover.spanContext().spanId),
    );
  });

  it('records no token, argument or body in any span or event', async () => {
    await open('mcp').call('get_products', { buying_mode: 'brief', brief: 'secret-brief-text-4242' });
    const dump = JSON.stringify(sdk.spans().map((s) => ({ name: s.name, attributes: s.attributes, events: s.events })));
    assert.doesNotMatch(dump, /planted-bearer-token|secret-brief-text-4242/);
  });
});
