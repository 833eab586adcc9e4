// AdcpClient({ transport }) with createInMemoryTransport: real MCP and A2A between AdcpClient and
// createAdcpServer in one process, no port (net.Server#listen is made to fail for the whole file),
// and getTransportTask / cancelTransportTask on both wires.
import { after, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { Server } from 'node:net';
import { AdcpClient, createInMemoryTransport, type AdcpTransport } from '../../src/client/index.js';
import { isAdcpWireError } from '../../src/index.js';
import { createAdcpServer, type AdcpServer, type AdcpToolDefinition } from '../../src/server/index.js';

before(() => {
  mock.method(Server.prototype, 'listen', () => {
    throw new Error('in-memory tests must not open a port');
  });
});
after(() => mock.restoreAll());

function gatedTools(): { tools: AdcpToolDefinition[]; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const tools: AdcpToolDefinition[] = [
    { name: 'get_products', description: 'Products', handler: () => ({ products: [] }) },
    {
      name: 'create_media_buy',
      description: 'Buy, finishing once released',
      handler: async () => {
        await released;
        return { media_buy_id: 'mb_1', packages: [] };
      },
    },
  ];
  return { tools, release };
}

describe('AdcpClient over createInMemoryTransport (createAdcpServer, no port)', () => {
  let server: AdcpServer;
  let release: () => void;
  before(() => {
    const gated = gatedTools();
    release = gated.release;
    server = createAdcpServer({ validateRequests: false, tools: gated.tools });
  });
  after(async () => {
    release();
    await server.close();
  });

  for (const protocol of ['mcp', 'a2a'] as const) {
    it(`calls a tool over ${protocol} and reads its transport task by id`, async () => {
      // MCP Tasks a caller asks for with { task } are the 2025 era's (on 2026-07-28 the server decides).
      const client = new AdcpClient({ transport: createInMemoryTransport(server, { protocol, mcpEra: 'legacy' }) });
      try {
        assert.equal(client.url, `http://127.0.0.1/${protocol}`);
        const result = await client.call(
          'get_products',
          { buying_mode: 'brief' },
          protocol === 'mcp' ? { task: {} } : {},
        );
        assert.equal(result.status, 'completed');
        assert.equal(result.protocol, protocol);
        assert.equal(typeof result.transportTaskId, 'string');
        const task = await client.getTransportTask(result.transportTaskId ?? '');
        assert.equal(task.status, 'completed');
        assert.equal(task.transportTaskId, result.transportTaskId);
        assert.deepEqual(task.data?.['products'], []);
      } finally {
        await client.close();
      }
    });
  }

  it('cancels a running A2A task, which then reads as canceled', async () => {
    const client = new AdcpClient({ transport: createInMemoryTransport(server, { protocol: 'a2a' }) });
    try {
      const started = await client.call('create_media_buy', {}, { returnImmediately: true });
      assert.equal(started.status, 'working');
      const id = started.transportTaskId ?? '';
      assert.equal((await client.cancelTransportTask(id)).status, 'canceled');
      assert.equal((await client.getTransportTask(id)).status, 'canceled');
    } finally {
      await client.close();
    }
  });

  it('reports the agent refusing to cancel a finished MCP Task, and an unknown id on both wires', async () => {
    const mcp = new AdcpClient({ transport: createInMemoryTransport(server, { protocol: 'mcp', mcpEra: 'legacy' }) });
    const a2a = new AdcpClient({ transport: createInMemoryTransport(server, { protocol: 'a2a' }) });
    try {
      const done = await mcp.call('get_products', { buying_mode: 'brief' }, { task: {} });
      await assert.rejects(mcp.cancelTransportTask(done.transportTaskId ?? ''), (error) => {
        assert.ok(isAdcpWireError(error) && error.code === 'refused', String(error));
        assert.match(error.message, /terminal status: completed/);
        return true;
      });
      await assert.rejects(
        mcp.getTransportTask('no-such-task'),
        (error) => isAdcpWireError(error) && error.code === 'refused',
      );
      await assert.rejects(
        a2a.cancelTransportTask('no-such-task'),
        (error) => isAdcpWireError(error) && error.code === 'not_found',
      );
    } finally {
      await Promise.all([mcp.close(), a2a.close()]);
    }
  });

  it('refuses an empty task id at once', async () => {
    const client = new AdcpClient({ transport: createInMemoryTransport(server, { protocol: 'mcp' }) });
    await assert.rejects(client.getTransportTask(''), TypeError);
    await assert.rejects(client.cancelTransportTask(''), TypeError);
    await client.close();
  });

  it('closes the transport it was given when the client closes', async () => {
    const transport = createInMemoryTransport(server, { protocol: 'mcp' });
    const client = new AdcpClient({ transport });
    assert.equal((await client.call('get_products', { buying_mode: 'brief' })).status, 'completed');
    await client.close();
    await assert.rejects(
      transport.listTools({ maxBytes: 1024 }),
      /in-memory transport to http:\/\/127\.0\.0\.1\/mcp is closed/,
    );
  });
});

describe('AdcpClient over createInMemoryTransport on MCP 2026-07-28 (server-directed tasks)', () => {
  let server: AdcpServer;
  let release: () => void;
  before(() => {
    const gated = gatedTools();
    release = gated.release;
    // Every task-capable call becomes a task at once: the server decides on this era.
    server = createAdcpServer({ validateRequests: false, tools: gated.tools, taskAfterMs: 0 });
  });
  after(async () => {
    release();
    await server.close();
  });
  const modern = () =>
    new AdcpClient({ transport: createInMemoryTransport(server, { protocol: 'mcp', mcpEra: 'modern' }) });

  it('calls a tool the server made a task and reads that task by id', async () => {
    const client = modern();
    try {
      const result = await client.call('get_products', { buying_mode: 'brief' });
      assert.equal(result.status, 'completed');
      assert.equal(typeof result.transportTaskId, 'string');
      const task = await client.getTransportTask(result.transportTaskId ?? '');
      assert.equal(task.status, 'completed');
      assert.equal(task.transportTaskId, result.transportTaskId);
      assert.deepEqual(task.data?.['products'], []);
    } finally {
      await client.close();
    }
  });

  it('cancels a running MCP Task (the waiting call ends canceled), then refuses to cancel it again', async () => {
    const client = modern();
    try {
      let cancelled: Promise<unknown> | undefined;
      const result = await client.call(
        'create_media_buy',
        {},
        {
          onProgress: (event) => {
            if (event.taskId !== undefined) cancelled ??= client.cancelTransportTask(event.taskId);
          },
        },
      );
      assert.equal(result.status, 'canceled');
      assert.equal(((await cancelled) as { status: string }).status, 'canceled');
      await assert.rejects(client.cancelTransportTask(result.transportTaskId ?? ''), (error) => {
        assert.ok(isAdcpWireError(error) && error.code === 'refused', String(error));
        assert.match(error.message, /terminal status: cancelled/);
        return true;
      });
      await assert.rejects(
        client.getTransportTask('no-such-task'),
        (error) => isAdcpWireError(error) && error.code === 'refused',
      );
    } finally {
      await client.close();
    }
  });
});

describe('createInMemoryTransport with credentials', () => {
  const server = createAdcpServer({
    validateRequests: false,
    tools: gatedTools().tools.slice(0, 1),
    authenticate: (req) => (req.headers.authorization === 'Bearer buyer-token' ? 'buyer' : null),
  });
  after(async () => server.close());

  it('sends its headers, and the server refuses a caller without them', async () => {
    const headers = { authorization: 'Bearer buyer-token' };
    const allowed = new AdcpClient({ transport: createInMemoryTransport(server, { protocol: 'a2a', headers }) });
    const anonymous = new AdcpClient({ transport: createInMemoryTransport(server, { protocol: 'a2a' }) });
    try {
      assert.equal((await allowed.call('get_products', { buying_mode: 'brief' })).status, 'completed');
      await assert.rejects(
        anonymous.call('get_products', { buying_mode: 'brief' }, { retry: false }),
        (error) => isAdcpWireError(error) && error.status === 401,
      );
    } finally {
      await Promise.all([allowed.close(), anonymous.close()]);
    }
  });
});

describe('new AdcpClient({ transport }) refusals', () => {
  const server = createAdcpServer({ tools: [] });
  after(async () => server.close());

  it('refuses the options that shape a created transport, naming them', () => {
    const transport = createInMemoryTransport(server, { protocol: 'mcp' });
    assert.throws(() => new AdcpClient({ transport, auth: 'token' }), /auth shape the transport/);
    assert.throws(
      () => new AdcpClient({ transport, headers: { 'x-a': 'b' }, credentialOrigins: ['http://127.0.0.1'] }),
      /headers, credentialOrigins shape the transport/,
    );
  });

  it('refuses a protocol the transport does not speak, and an object that is not a transport', () => {
    const transport = createInMemoryTransport(server, { protocol: 'mcp' });
    assert.throws(
      () => new AdcpClient({ transport, protocol: 'a2a' }),
      /protocol is 'a2a' but the transport speaks mcp/,
    );
    assert.equal(new AdcpClient({ transport, protocol: 'mcp' }).url, 'http://127.0.0.1/mcp');
    const notTransport = { protocol: 'mcp', callTool: () => undefined } as unknown as typeof transport;
    assert.throws(() => new AdcpClient({ transport: notTransport }), /transport must be an AdcpTransport/);
  });

  it('takes url from the options over the transport, and needs one from either', () => {
    const transport = createInMemoryTransport(server, { protocol: 'a2a', url: 'http://127.0.0.1/a2a/legacy' });
    assert.equal(new AdcpClient({ transport }).url, 'http://127.0.0.1/a2a/legacy');
    assert.equal(new AdcpClient({ transport, url: 'http://127.0.0.1/agent' }).url, 'http://127.0.0.1/agent');
    const withoutUrl: AdcpTransport = {
      protocol: 'mcp',
      callTool: () => Promise.reject(new Error('not called')),
      listTools: async () => [],
      readCard: async () => ({}),
      close: async () => undefined,
    };
    assert.throws(
      () => new AdcpClient({ transport: withoutUrl }),
      /url must be an absolute http\(s\) URL, got undefined/,
    );
    assert.equal(new AdcpClient({ transport: withoutUrl, url: 'http://127.0.0.1/x' }).url, 'http://127.0.0.1/x');
  });

  it('createInMemoryTransport refuses a missing protocol or server', () => {
    assert.throws(() => createInMemoryTransport(server, {} as { protocol: 'mcp' }), /protocol must be 'mcp' or 'a2a'/);
    assert.throws(() => createInMemoryTransport({} as AdcpServer, { protocol: 'mcp' }), /pass an AdcpServer/);
  });
});
