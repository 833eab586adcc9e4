import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { AdcpClient, AdcpValidationError, type RetryOptions } from '../../src/client/index.js';
import { AdcpWireError } from '../../src/core/wire-error.js';
import { adcpErrorAnswer, startMcpTestServer, type TestServer, type TestTool } from '../mcp/helpers/mcp-test-server.js';
import { fakeClock } from './helpers/fake-clock.js';
type Json = Record<string, unknown>;

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function echo(args: Record<string, unknown>) {
  return {
    content: [],
    structuredContent: { status: 'completed', echoed: args, ...(args['context'] ? { context: args['context'] } : {}) },
  };
}

const tools: TestTool[] = [
  { name: 'get_products', handler: echo },
  { name: 'create_media_buy', handler: echo },
  {
    name: 'always_limited',
    handler: () => adcpErrorAnswer({ code: 'RATE_LIMITED', recovery: 'transient', retry_after: 2 }),
  },
  {
    name: 'long_wait',
    handler: () => adcpErrorAnswer({ code: 'SERVICE_UNAVAILABLE', recovery: 'transient', retry_after: 200 }),
  },
  { name: 'correctable', handler: () => adcpErrorAnswer({ code: 'BUDGET_TOO_LOW', recovery: 'correctable' }) },
  {
    name: 'no_delay_transient',
    handler: () => {
      throw new McpError(-32027, 'down', { adcp_error: { code: 'SERVICE_UNAVAILABLE' } });
    },
  },
  {
    name: 'slow',
    handler: async () => {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      return { content: [], structuredContent: {} };
    },
  },
  {
    name: 'big',
    handler: (args) => ({ content: [], structuredContent: { blob: 'x'.repeat(Number(args['size'])) } }),
  },
  {
    name: 'strict',
    inputSchema: { type: 'object', required: ['brief'], properties: { brief: { type: 'string' } } },
    handler: echo,
  },
];

/** Rate-limits `create_media_buy` calls: the first `limit` get a JSON-RPC -32029 over HTTP 429. */
function rateLimiter(limit: number, keys: unknown[]) {
  let seen = 0;
  return (message: Record<string, unknown> | undefined, _req: unknown, res: import('node:http').ServerResponse) => {
    const params = message?.['params'] as { name?: string; arguments?: Record<string, unknown> } | undefined;
    if (message?.['method'] !== 'tools/call' || params?.name !== 'create_media_buy') return false;
    keys.push(params.arguments?.['idempotency_key']);
    seen += 1;
    if (seen > limit) return false;
    res.writeHead(429, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: message['id'],
        error: {
          code: -32029,
          message: 'Rate limit exceeded',
          data: { adcp_error: { code: 'RATE_LIMITED', retry_after: 1, recovery: 'transient' } },
        },
      }),
    );
    return true;
  };
}

describe('AdcpClient.call over MCP', () => {
  let server: TestServer;
  let client: AdcpClient;
  const limitedKeys: unknown[] = [];
  before(async () => {
    server = await startMcpTestServer({ tools, middleware: rateLimiter(2, limitedKeys) });
    client = new AdcpClient({ url: server.url, protocol: 'mcp', auth: 'tok-1', clock: fakeClock() });
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  function lastArgs(tool: string): Record<string, unknown> {
    const call = server.received
      .filter((m) => m['method'] === 'tools/call' && (m['params'] as { name: string }).name === tool)
      .at(-1);
    return (call!['params'] as { arguments: Record<string, unknown> }).arguments;
  }

  it('returns the flat structuredContent body as data', async () => {
    const result = await client.call<string>('get_products', { brief: 'ctv' });
    assert.equal(result.status, 'completed');
    assert.deepEqual((result.data!['echoed'] as Record<string, unknown>)['brief'], 'ctv');
  });

  it('sends no idempotency_key on a read-only tool', async () => {
    await client.call('get_products', { brief: 'x' });
    assert.equal(lastArgs('get_products')['idempotency_key'], undefined);
  });

  it('generates a UUID v4 idempotency_key for a mutating tool', async () => {
    // The rate limiter lets create_media_buy through after two refusals; drain them first.
    await client.call('create_media_buy', {});
    const result = await client.call<string>('create_media_buy', { budget: 5 });
    assert.equal(result.status, 'completed');
    assert.match(String(lastArgs('create_media_buy')['idempotency_key']), UUID_V4);
  });

  it('retried the rate-limited call with the same idempotency_key each time', () => {
    assert.equal(limitedKeys.length >= 3, true);
    assert.match(String(limitedKeys[0]), UUID_V4);
    assert.equal(limitedKeys[1], limitedKeys[0]);
    assert.equal(limitedKeys[2], limitedKeys[0]);
  });

  it('uses a caller-supplied idempotency key as is', async () => {
    await client.call('create_media_buy', {}, { idempotencyKey: 'caller-key-0001-abcdef' });
    assert.equal(lastArgs('create_media_buy')['idempotency_key'], 'caller-key-0001-abcdef');
  });

  it('sends context and returns its echo', async () => {
    const result = await client.call('get_products', {}, { context: { ui: 'dash', trace: 7 } });
    assert.deepEqual(lastArgs('get_products')['context'], { ui: 'dash', trace: 7 });
    assert.deepEqual(result.context, { ui: 'dash', trace: 7 });
  });

  it('never sends context_id on MCP', async () => {
    await client.call<string>('get_products', { context_id: 'ctx-1' }, { contextId: 'ctx-2' });
    assert.equal('context_id' in lastArgs('get_products'), false);
  });

  it('ignores returnImmediately on MCP: the call waits for the answer', async () => {
    const result = await client.call<string>('get_products', { brief: 'now' }, { returnImmediately: true });
    assert.equal(result.status, 'completed');
    assert.equal((result.data!['echoed'] as Record<string, unknown>)['brief'], 'now');
  });

  it('refuses continueTask on MCP with a TypeError, sending nothing', async () => {
    const before = server.received.filter((m) => m['method'] === 'tools/call').length;
    await assert.rejects(client.call('create_media_buy', {}, { continueTask: 'task-1' }), (error: unknown) => {
      assert.ok(error instanceof TypeError);
      assert.match(error.message, /continueTask is A2A only/);
      return true;
    });
    assert.equal(server.received.filter((m) => m['method'] === 'tools/call').length, before);
  });

  it('sends the bearer token', async () => {
    await client.call('get_products', {});
    assert.equal(server.headers.at(-1)?.['authorization'], 'Bearer tok-1');
  });

  it('returns a correctable error at once', async () => {
    const before = server.received.length;
    const result = await client.call('correctable' as string, {});
    assert.ok(result.status === 'failed');
    assert.equal(result.error.action, 'surface_to_caller');
    assert.equal(server.received.slice(before).filter((m) => m['method'] === 'tools/call').length, 1);
  });

  it('refuses arguments that fail the request schema before sending them, with pointers', async () => {
    const strict = new AdcpClient({ url: server.url, protocol: 'mcp', validate: 'request' });
    try {
      const before = server.received.filter((m) => m['method'] === 'tools/call').length;
      await assert.rejects(
        strict.call<string>('get_products', { buying_mode: 'retail', brief: 5 }),
        (error: unknown) => {
          assert.ok(error instanceof AdcpValidationError);
          assert.equal(error.release, '3.1');
          // Validation stops at the first problem (docs/decisions/0121): one issue, with its pointer.
          assert.deepEqual(
            error.issues.map((i) => i.pointer),
            ['/buying_mode'],
          );
          return true;
        },
      );
      const sent = server.received
        .filter((m) => m['method'] === 'tools/call')
        .map((m) => (m['params'] as Json)['name']);
      assert.ok(!sent.slice(before).includes('get_products'), 'nothing was sent');
      const ok = await strict.call('get_products', { buying_mode: 'brief', brief: 'fine' });
      assert.equal(ok.status, 'completed');
      const unknown = await strict.call('strict' as string, { brief: 'a tool the schemas do not know goes unchecked' });
      assert.equal(unknown.status, 'completed');
    } finally {
      await strict.close();
    }
  });

  it('times out a call that takes longer than timeoutMs', async () => {
    await assert.rejects(client.call('slow' as string, {}, { timeoutMs: 100 }), (error: unknown) => {
      assert.ok(error instanceof AdcpWireError);
      assert.equal(error.code, 'timeout');
      return true;
    });
  });

  it('ends a call in flight when the client is closed', async () => {
    const closing = new AdcpClient({ url: server.url, protocol: 'mcp' });
    await closing.call('get_products', {});
    const inFlight = assert.rejects(
      closing.call('slow' as string, {}),
      (error: unknown) => error instanceof AdcpWireError && error.code === 'aborted',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await closing.close();
    await inFlight;
    await assert.rejects(closing.call('get_products', {}), TypeError);
  });

  it('fails an answer over maxResponseBytes with response_too_large', async () => {
    await assert.rejects(
      client.call('big' as string, { size: 100_000 }, { maxResponseBytes: 10_000 }),
      (error: unknown) => {
        assert.ok(error instanceof AdcpWireError);
        assert.equal(error.code, 'response_too_large');
        return true;
      },
    );
  });
});

describe('AdcpClient retry ceilings', () => {
  let server: TestServer;
  before(async () => {
    server = await startMcpTestServer({ tools, mode: 'json' });
  });
  after(async () => {
    await server.close();
  });

  function count(tool: string, from: number): number {
    return server.received
      .slice(from)
      .filter((m) => m['method'] === 'tools/call' && (m['params'] as { name: string }).name === tool).length;
  }

  /** Runs `run` with a client on a fake clock (its sleeps recorded), closed afterwards. */
  async function withClient(
    retry: RetryOptions | undefined,
    run: (client: AdcpClient, clock: ReturnType<typeof fakeClock>) => Promise<void>,
  ): Promise<void> {
    const clock = fakeClock();
    const client = new AdcpClient({
      url: server.url,
      protocol: 'mcp',
      clock,
      ...(retry === undefined ? {} : { retry }),
    });
    try {
      await run(client, clock);
    } finally {
      await client.close();
    }
  }

  it('stops after maxAttempts and returns the last transient failure', async () => {
    await withClient(undefined, async (client, clock) => {
      const from = server.received.length;
      const result = await client.call('always_limited' as string, {});
      assert.ok(result.status === 'failed');
      assert.equal(result.error.code, 'RATE_LIMITED');
      assert.equal(count('always_limited', from), 3);
      assert.deepEqual(clock.sleeps, [2000, 2000]);
    });
  });

  it('does not take a wait that would pass maxTotalSeconds', async () => {
    await withClient(undefined, async (client, clock) => {
      const from = server.received.length;
      await client.call('long_wait' as string, {});
      assert.equal(count('long_wait', from), 2);
      assert.deepEqual(clock.sleeps, [200_000]);
    });
  });

  it("returns the agent's answer at once when its retry_after would pass the call's timeout", async () => {
    await withClient(undefined, async (client, clock) => {
      const from = server.received.length;
      const result = await client.call('long_wait' as string, {}, { timeoutMs: 20_000 });
      assert.ok(result.status === 'failed');
      assert.equal(result.error.code, 'SERVICE_UNAVAILABLE');
      assert.equal(result.error.retryDelaySeconds, 200);
      assert.equal(count('long_wait', from), 1);
      assert.deepEqual(clock.sleeps, []);
    });
  });

  it('tells onRetry before each wait', async () => {
    await withClient(undefined, async (client) => {
      const notices: unknown[] = [];
      await client.call('always_limited' as string, {}, { onRetry: (notice) => notices.push(notice) });
      assert.deepEqual(notices, [
        { attempt: 2, maxAttempts: 3, delayMs: 2000, agentAsked: true, reason: 'RATE_LIMITED' },
        { attempt: 3, maxAttempts: 3, delayMs: 2000, agentAsked: true, reason: 'RATE_LIMITED' },
      ]);
    });
  });

  it('backs off exponentially with jitter when the agent gives no retry_after', async () => {
    await withClient({ maxAttempts: 4, initialDelayMs: 1000 }, async (client, clock) => {
      await client.call('no_delay_transient' as string, {});
      assert.deepEqual(clock.sleeps, [750, 1500, 3000]);
    });
  });

  it('does not retry at all with retry: false', async () => {
    await withClient(undefined, async (client) => {
      const from = server.received.length;
      await client.call('always_limited' as string, {}, { retry: false });
      assert.equal(count('always_limited', from), 1);
    });
  });
});

describe('AdcpClient connection failures', () => {
  it('retries a refused connection and succeeds once the agent listens', async () => {
    const probe = await startMcpTestServer({ tools });
    const port = probe.port;
    const url = probe.url;
    await probe.close();
    let server: TestServer | undefined;
    const clock = fakeClock(async () => {
      server ??= await startMcpTestServer({ tools, port });
    });
    const client = new AdcpClient({ url, protocol: 'mcp', clock });
    try {
      const result = await client.call<string>('create_media_buy', { budget: 1 });
      assert.equal(result.status, 'completed');
      assert.equal(clock.sleeps.length, 1);
    } finally {
      await client.close();
      await server?.close();
    }
  });

  it('throws the network error once the attempts are used up', async () => {
    const probe = await startMcpTestServer({ tools });
    const url = probe.url;
    await probe.close();
    const client = new AdcpClient({ url, protocol: 'mcp', clock: fakeClock() });
    try {
      await assert.rejects(
        client.call('get_products', {}),
        (error: unknown) => error instanceof AdcpWireError && error.code === 'network',
      );
    } finally {
      await client.close();
    }
  });
});

describe('AdcpClient against a server that never answers', () => {
  it('times out while connecting and close() returns', async () => {
    const { createServer } = await import('node:http');
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as import('node:net').AddressInfo).port;
    const client = new AdcpClient({ url: `http://127.0.0.1:${port}/mcp`, protocol: 'mcp', timeoutMs: 200 });
    try {
      await assert.rejects(
        client.call('get_products', {}),
        (error: unknown) => error instanceof AdcpWireError && error.code === 'timeout',
      );
    } finally {
      await client.close();
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

describe('AdcpClient options', () => {
  it('refuses a relative url', () => {
    assert.throws(() => new AdcpClient({ url: '/mcp', protocol: 'mcp' }), TypeError);
  });

  it('refuses an unknown protocol', () => {
    assert.throws(() => new AdcpClient({ url: 'http://127.0.0.1:1/mcp', protocol: 'grpc' as 'mcp' }), TypeError);
  });

  it('refuses a bearer token with a line break', () => {
    assert.throws(
      () => new AdcpClient({ url: 'http://127.0.0.1:1/mcp', protocol: 'mcp', auth: 'a\r\nx: y' }),
      TypeError,
    );
  });

  it('refuses a header value with a line break', () => {
    assert.throws(
      () => new AdcpClient({ url: 'http://127.0.0.1:1/mcp', protocol: 'mcp', headers: { 'x-a': 'b\nc' } }),
      TypeError,
    );
  });

  it('refuses a url that is not http(s)', () => {
    assert.throws(() => new AdcpClient({ url: 'file:///etc/passwd', protocol: 'mcp' }), TypeError);
  });

  it('refuses a returnImmediately that is not a boolean', async () => {
    const client = new AdcpClient({ url: 'http://127.0.0.1:1/mcp', protocol: 'mcp' });
    await assert.rejects(
      client.call('get_products', {}, { returnImmediately: 'yes' as unknown as boolean }),
      /returnImmediately must be true or false/,
    );
  });

  it('refuses an empty or non-string continueTask', async () => {
    const client = new AdcpClient({ url: 'http://127.0.0.1:1/mcp', protocol: 'mcp' });
    await assert.rejects(
      client.call('get_products', {}, { continueTask: '' }),
      /continueTask must be the transportTaskId/,
    );
    await assert.rejects(
      client.call('get_products', {}, { continueTask: 7 as unknown as string }),
      /continueTask must be the transportTaskId/,
    );
  });

  it('refuses a non-positive maxResponseBytes', () => {
    assert.throws(
      () => new AdcpClient({ url: 'http://127.0.0.1:1/mcp', protocol: 'mcp', maxResponseBytes: 0 }),
      RangeError,
    );
  });
});
