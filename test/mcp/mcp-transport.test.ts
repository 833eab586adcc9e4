// test-timeout-ms: 300000
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { createMcpTransport } from '../../src/mcp/index.js';
import type { AdcpTransport, ProgressEvent } from '../../src/transport/transport.js';
import { AdcpWireError } from '../../src/core/wire-error.js';
import {
  startMcpTestServer,
  withMcpServer,
  type TestServer,
  type TestServerOptions,
  type TestTool,
} from './helpers/mcp-test-server.js';

const MAX = 4 * 1024 * 1024;
const openTransport = (server: TestServer) => createMcpTransport({ url: server.url, maxBytes: MAX });

const tools: TestTool[] = [
  {
    name: 'get_products',
    handler: () => ({
      content: [{ type: 'text', text: 'Found 1 product' }],
      structuredContent: { status: 'completed', message: 'Found 1 product', products: [{ product_id: 'p1' }] },
    }),
  },
  {
    name: 'legacy_text',
    handler: () => ({ content: [{ type: 'text', text: '{"status":"completed","products":[{"product_id":"t1"}]}' }] }),
  },
  { name: 'plain_text', handler: () => ({ content: [{ type: 'text', text: 'All good, nothing structured.' }] }) },
  {
    name: 'budget_error',
    handler: () => ({
      isError: true,
      content: [{ type: 'text', text: 'Budget too low.' }],
      structuredContent: {
        adcp_error: { code: 'BUDGET_TOO_LOW', message: 'too low', recovery: 'correctable', field: 'budget.total' },
      },
    }),
  },
  {
    name: 'rpc_rate_limited',
    handler: () => {
      throw new McpError(-32029, 'Rate limit exceeded', {
        adcp_error: { code: 'RATE_LIMITED', retry_after: 5, recovery: 'transient' },
      });
    },
  },
  {
    name: 'rpc_plain',
    handler: () => {
      throw new McpError(-32603, 'boom');
    },
  },
  {
    name: 'big',
    handler: (args) => ({ content: [{ type: 'text', text: 'x'.repeat(Number(args['size'] ?? 1000)) }] }),
  },
  {
    name: 'with_progress',
    handler: async (_args, context) => {
      await context.progress(1, 4, 'reading\u0007 inventory');
      await context.progress(2, 4);
      return { content: [], structuredContent: { done: true } };
    },
  },
  {
    name: 'echo_headers',
    handler: (_args, context) => ({
      content: [],
      structuredContent: {
        authorization: String(context.headers['authorization'] ?? ''),
        custom: String(context.headers['x-custom'] ?? ''),
      },
    }),
  },
];

for (const mode of ['sse', 'json', 'legacy-sse'] as const) {
  describe(`McpTransport.callTool over ${mode}`, () => {
    let server: TestServer;
    let transport: AdcpTransport;
    before(async () => {
      server = await startMcpTestServer({ tools, mode });
      transport = createMcpTransport({
        url: server.url,
        maxBytes: MAX,
        headers: { authorization: 'Bearer secret-1', 'x-custom': 'yes' },
      });
    });
    after(async () => {
      await transport.close();
      await server.close();
    });

    it('returns structuredContent as completed data', async () => {
      const result = await transport.callTool('get_products', {}, { maxBytes: MAX });
      assert.equal(result.status, 'completed');
      assert.deepEqual(result.data?.['products'], [{ product_id: 'p1' }]);
      assert.equal(result.message, 'Found 1 product');
      assert.equal(result.protocol, 'mcp');
    });

    it('parses a JSON text answer from an older server', async () => {
      const result = await transport.callTool('legacy_text', {}, { maxBytes: MAX });
      assert.equal(result.status, 'completed');
      assert.deepEqual(result.data?.['products'], [{ product_id: 't1' }]);
    });

    it('returns a plain-text answer as completed with no data', async () => {
      const result = await transport.callTool('plain_text', {}, { maxBytes: MAX });
      assert.ok(result.status === 'completed');
      assert.equal(result.data, undefined);
      assert.equal(result.text, 'All good, nothing structured.');
    });

    it('turns isError with adcp_error into a failed result with its recovery', async () => {
      const result = await transport.callTool('budget_error', {}, { maxBytes: MAX });
      assert.equal(result.status, 'failed');
      assert.ok(result.status === 'failed');
      assert.equal(result.error.code, 'BUDGET_TOO_LOW');
      assert.equal(result.error.action, 'surface_to_caller');
    });

    it('turns a JSON-RPC error with data.adcp_error into a failed transient result', async () => {
      const result = await transport.callTool('rpc_rate_limited', {}, { maxBytes: MAX });
      assert.ok(result.status === 'failed');
      assert.equal(result.error.code, 'RATE_LIMITED');
      assert.equal(result.error.retryDelaySeconds, 5);
      assert.equal(result.error.action, 'retry');
    });

    it('throws a protocol AdcpWireError for a JSON-RPC error without adcp_error', async () => {
      await assert.rejects(transport.callTool('rpc_plain', {}, { maxBytes: MAX }), (error: unknown) => {
        assert.ok(error instanceof AdcpWireError);
        assert.equal(error.code, 'protocol');
        return true;
      });
    });

    // Only SSE answers can carry notifications before the result (the SDK's legacy server sends none either).
    it(
      'reports MCP progress notifications as percentages with sanitised messages',
      { skip: mode !== 'sse' },
      async () => {
        const events: ProgressEvent[] = [];
        const result = await transport.callTool(
          'with_progress',
          {},
          { maxBytes: MAX, onProgress: (e) => events.push(e) },
        );
        assert.equal(result.status, 'completed');
        assert.deepEqual(events, [
          { lifecycle: 'mcp', status: 'working', percentage: 25, message: 'reading inventory' },
          { lifecycle: 'mcp', status: 'working', percentage: 50 },
        ]);
      },
    );

    it('sends the configured headers on every request', async () => {
      const result = await transport.callTool('echo_headers', {}, { maxBytes: MAX });
      assert.equal(result.data?.['authorization'], 'Bearer secret-1');
      assert.equal(result.data?.['custom'], 'yes');
    });

    it('fails an answer over the per-call cap with response_too_large', async () => {
      await assert.rejects(transport.callTool('big', { size: 200_000 }, { maxBytes: 50_000 }), (error: unknown) => {
        assert.ok(error instanceof AdcpWireError);
        assert.equal(error.code, 'response_too_large');
        return true;
      });
    });

    it('keeps working after an oversized answer', async () => {
      const result = await transport.callTool('big', { size: 100 }, { maxBytes: MAX });
      assert.equal(result.status, 'completed');
    });

    it('refuses continueTask (A2A only) with a TypeError', async () => {
      await assert.rejects(transport.callTool('get_products', {}, { maxBytes: MAX, continueTask: 't-1' }), TypeError);
    });

    it('ignores returnImmediately and answers with the result', async () => {
      const result = await transport.callTool('get_products', {}, { maxBytes: MAX, returnImmediately: true });
      assert.equal(result.status, 'completed');
      assert.deepEqual(result.data?.['products'], [{ product_id: 'p1' }]);
    });

    it('aborts a call when its signal fires', async () => {
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(
        transport.callTool('get_products', {}, { maxBytes: MAX, signal: controller.signal }),
        (error: unknown) => {
          assert.ok(error instanceof AdcpWireError);
          assert.equal(error.code, 'aborted');
          return true;
        },
      );
    });
  });
}

describe('McpTransport when the server dies mid-answer', () => {
  it('fails the call at once as a dropped connection instead of waiting for its deadline', async () => {
    const middleware: TestServerOptions['middleware'] = (message, _req, res) => {
      if (message?.['method'] !== 'tools/call') return false;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': working on it\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
      return true;
    };
    await withMcpServer({ tools, middleware }, openTransport, async (transport) => {
      await assert.rejects(transport.callTool('get_products', {}, { maxBytes: MAX }), (error: unknown) => {
        assert.ok(error instanceof AdcpWireError);
        assert.equal(error.code, 'network');
        assert.match(error.message, /broke before the answer/);
        return true;
      });
    });
  });
});

describe('McpTransport on the legacy transport when the shared stream ends', () => {
  it('fails the waiting call and reconnects for the next one', async () => {
    const hang: TestTool = { name: 'hang', handler: () => new Promise(() => undefined) };
    await withMcpServer({ mode: 'legacy-sse', tools: [...tools, hang] }, openTransport, async (transport, server) => {
      await transport.callTool('get_products', {}, { maxBytes: MAX });
      const waiting = transport.callTool('hang', {}, { maxBytes: MAX });
      for (
        let i = 0;
        i < 100 && !server.received.some((m) => (m['params'] as { name?: string } | undefined)?.name === 'hang');
        i++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await server.dropStreams();
      await assert.rejects(waiting, (error: unknown) => error instanceof AdcpWireError && error.code === 'network');
      const next = await transport.callTool('get_products', {}, { maxBytes: MAX });
      assert.equal(next.status, 'completed');
    });
  });
});

describe('McpTransport concurrent calls', () => {
  it('applies each call its own byte cap when many share the session', async () => {
    await withMcpServer({ tools }, openTransport, async (transport) => {
      const calls = Array.from({ length: 12 }, (_, i) =>
        transport.callTool('big', { size: 20_000 }, { maxBytes: i % 2 === 0 ? 5_000 : MAX }).then(
          (r) => r.status,
          (e: unknown) => (e instanceof AdcpWireError ? e.code : 'other'),
        ),
      );
      const outcomes = await Promise.all(calls);
      assert.deepEqual(
        outcomes,
        Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? 'response_too_large' : 'completed')),
      );
    });
  });
});

describe('McpTransport sessions', () => {
  it('reuses one MCP session for many calls', async () => {
    await withMcpServer({ tools }, openTransport, async (transport, server) => {
      for (let i = 0; i < 3; i++) await transport.callTool('get_products', {}, { maxBytes: MAX });
      const initializes = server.received.filter((m) => m['method'] === 'initialize');
      assert.equal(initializes.length, 1);
    });
  });

  it('gives two transports two sessions, each with its own credentials', async () => {
    const server = await startMcpTestServer({ tools });
    const a = createMcpTransport({ url: server.url, maxBytes: MAX, headers: { authorization: 'Bearer a' } });
    const b = createMcpTransport({ url: server.url, maxBytes: MAX, headers: { authorization: 'Bearer b' } });
    try {
      const ra = await a.callTool('echo_headers', {}, { maxBytes: MAX });
      const rb = await b.callTool('echo_headers', {}, { maxBytes: MAX });
      assert.equal(ra.data?.['authorization'], 'Bearer a');
      assert.equal(rb.data?.['authorization'], 'Bearer b');
      assert.equal(server.received.filter((m) => m['method'] === 'initialize').length, 2);
    } finally {
      await a.close();
      await b.close();
      await server.close();
    }
  });

  it('opens a new session and resends when the server answers 404 for the session', async () => {
    let forgotten = false;
    const middleware: TestServerOptions['middleware'] = (message, _req, res) => {
      if (forgotten || message?.['method'] !== 'tools/call') return false;
      forgotten = true;
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
      return true;
    };
    await withMcpServer({ tools, middleware }, openTransport, async (transport, server) => {
      const result = await transport.callTool('get_products', {}, { maxBytes: MAX });
      assert.equal(result.status, 'completed');
      assert.equal(server.received.filter((m) => m['method'] === 'initialize').length, 2);
    });
  });

  it('throws a retryable network error when nothing listens', async () => {
    const server = await startMcpTestServer({ tools });
    const url = server.url;
    await server.close();
    const transport = createMcpTransport({ url, maxBytes: MAX });
    try {
      await assert.rejects(transport.callTool('get_products', {}, { maxBytes: MAX }), (error: unknown) => {
        assert.ok(error instanceof AdcpWireError);
        assert.equal(error.code, 'network');
        assert.equal(error.retryable, true);
        return true;
      });
    } finally {
      await transport.close();
    }
  });

  it('refuses calls after close()', async () => {
    const server = await startMcpTestServer({ tools });
    const transport = createMcpTransport({ url: server.url, maxBytes: MAX });
    await transport.callTool('get_products', {}, { maxBytes: MAX });
    await transport.close();
    await server.close();
    await assert.rejects(transport.callTool('get_products', {}, { maxBytes: MAX }), /closed/);
  });
});

describe('McpTransport byte cap on the legacy HTTP+SSE stream', () => {
  it('fails the waiting call when an event on the shared stream is over the transport cap', async () => {
    const open = (server: TestServer) => createMcpTransport({ url: server.url, maxBytes: 50_000 });
    await withMcpServer({ tools, mode: 'legacy-sse' }, open, async (transport) => {
      await assert.rejects(transport.callTool('big', { size: 200_000 }, { maxBytes: 50_000 }), (error: unknown) => {
        assert.ok(error instanceof AdcpWireError);
        assert.equal(error.code, 'response_too_large');
        return true;
      });
    });
  });
});

describe('McpTransport abort listeners', () => {
  it('adds no lasting listener per call to the caller signal or any shared one (1,600 calls)', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning.name);
    };
    const shared = new AbortController();
    await withMcpServer({ tools, mode: 'json' }, openTransport, async (transport, server) => {
      process.on('warning', onWarning);
      try {
        for (let i = 0; i < 1600; i++) {
          server.received.length = 0;
          await transport.callTool('plain_text', {}, { maxBytes: MAX, signal: shared.signal });
        }
        await new Promise((resolve) => setImmediate(resolve));
        assert.deepEqual(warnings, []);
      } finally {
        process.off('warning', onWarning);
      }
    });
  });
});

describe('McpTransport with JSON-RPC errors from middleware', () => {
  const codes = [
    [-32029, 'RATE_LIMITED', 'retry'],
    [-32028, 'AUTH_MISSING', 'surface_to_caller'],
    [-32027, 'SERVICE_UNAVAILABLE', 'retry'],
  ] as const;
  for (const [rpcCode, adcpCode, action] of codes) {
    it(`turns ${rpcCode} with data.adcp_error ${adcpCode} (HTTP 200) into a failed result`, async () => {
      const middleware: TestServerOptions['middleware'] = (message, _req, res) => {
        if (message?.['method'] !== 'tools/call') return false;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message['id'],
            error: { code: rpcCode, message: 'rejected before dispatch', data: { adcp_error: { code: adcpCode } } },
          }),
        );
        return true;
      };
      await withMcpServer({ tools, mode: 'json', middleware }, openTransport, async (transport) => {
        const result = await transport.callTool('get_products', {}, { maxBytes: MAX });
        assert.ok(result.status === 'failed');
        assert.equal(result.error.code, adcpCode);
        assert.equal(result.error.action, action);
        assert.equal(result.data, undefined);
        assert.equal(result.message, 'rejected before dispatch');
      });
    });
  }
});
