import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AdcpClient, createInMemoryTransport } from '../../src/client/index.js';
import { createAdcpServer, type AdcpServer } from '../../src/server/index.js';
import { parentOf, registerTestSdk, type TestSdk } from './otel-sdk.js';

// createInMemoryTransport carries W3C trace context like the network transports: every request
// names the client's attempt span in `traceparent`, and the server continues that trace.
describe('in-memory transport with an OpenTelemetry SDK registered', () => {
  let sdk: TestSdk;
  let server: AdcpServer;
  const received: { method: string | undefined; traceparent: string | undefined }[] = [];
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const header = req.headers['traceparent'];
    received.push({ method: req.method, traceparent: Array.isArray(header) ? header.join(',') : header });
    return server.handle(req, res);
  };

  before(() => {
    sdk = registerTestSdk();
    server = createAdcpServer({
      validateRequests: false,
      tools: [{ name: 'get_products', description: 'Products', handler: () => ({ products: [] }) }],
    });
  });
  after(async () => {
    await server.close();
    await sdk.shutdown();
  });
  beforeEach(() => {
    sdk.reset();
    received.length = 0;
  });

  for (const protocol of ['mcp', 'a2a'] as const) {
    it(`sends traceparent naming the attempt span, and the server continues it (${protocol})`, async () => {
      const client = new AdcpClient({ transport: createInMemoryTransport(listener, { protocol }) });
      try {
        const result = await client.call('get_products', { buying_mode: 'brief', brief: 'news' });
        assert.equal(result.status, 'completed');
      } finally {
        await client.close();
      }
      const spans = sdk.spans();
      const attemptName = protocol === 'mcp' ? 'tools/call get_products' : 'SendMessage get_products';
      const attempt = spans.find((s) => s.name === attemptName && s.kind === 2);
      assert.ok(attempt, `no client attempt span in ${spans.map((s) => s.name).join(', ')}`);
      const { traceId, spanId } = attempt.spanContext();
      const posts = received.filter((r) => r.method === 'POST');
      assert.ok(
        posts.some((r) => r.traceparent === `00-${traceId}-${spanId}-01`),
        `no request named the attempt span: ${JSON.stringify(received)}`,
      );
      for (const post of posts) assert.match(post.traceparent ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
      // The server's span for the request is a child of the client's attempt span.
      const serverSpans = spans.filter((s) => s.kind === 1 && s.spanContext().traceId === traceId);
      assert.ok(
        serverSpans.some((s) => parentOf(s) === spanId),
        `no server span under the attempt: ${spans.map((s) => `${s.name}<${parentOf(s) ?? ''}`).join(', ')}`,
      );
    });
  }
});
