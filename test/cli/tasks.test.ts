import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main.js';
import { AdcpClient } from '../../src/client/index.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { recordingIo } from './fake-io.js';
import { fastSeller } from './seller.js';
import { startMcpTestServer } from '../mcp/helpers/mcp-test-server.js';

describe('adcp tasks against the reference seller', () => {
  let seller: ListeningAdcpServer;
  let taskId = '';
  before(async () => {
    seller = await fastSeller();
    const client = new AdcpClient({ url: seller.mcpUrl, protocol: 'mcp' });
    const submitted = await client.call('create_media_buy', { ...mediaBuyRequest([packageRequest('olv_pets', 5)]) });
    taskId = submitted.taskId ?? '';
    await client.waitFor(submitted, { pollIntervalMs: 50, timeoutMs: 10_000 });
    await client.close();
  });
  after(async () => seller.close());

  it('gets a finished AdCP task with its result', async () => {
    assert.notEqual(taskId, '');
    const io = recordingIo();
    assert.equal(await main(['tasks', 'get', seller.mcpUrl, taskId, '--json'], io), 0);
    const out = JSON.parse(io.out()) as { status: string; data: { media_buy_id?: string } };
    assert.equal(out.status, 'completed');
    assert.match(out.data.media_buy_id ?? '', /^mb_/);
  });

  it('reads an A2A task by its transport id with --transport-task', async () => {
    const client = new AdcpClient({ url: seller.a2aUrl, protocol: 'a2a' });
    const result = await client.call('get_products', { buying_mode: 'brief', brief: 'pets' });
    await client.close();
    assert.equal(typeof result.transportTaskId, 'string');
    const io = recordingIo();
    const argv = [
      'tasks',
      'get',
      seller.a2aUrl,
      result.transportTaskId ?? '',
      '--protocol',
      'a2a',
      '--transport-task',
      '--json',
    ];
    assert.equal(await main(argv, io), 0, io.err());
    const out = JSON.parse(io.out()) as { status: string; protocol: string; transport_task_id?: string };
    assert.equal(out.status, 'completed');
    assert.equal(out.protocol, 'a2a');
    assert.equal(out.transport_task_id, result.transportTaskId);
  });

  it('gets an AdCP task over A2A', async () => {
    const io = recordingIo();
    assert.equal(await main(['tasks', 'get', seller.a2aUrl, taskId, '--protocol', 'a2a', '--json'], io), 0, io.err());
    assert.equal((JSON.parse(io.out()) as { status: string }).status, 'completed');
  });

  it('says "no such task" (not_found, exit 1) for a task the agent does not know, on both wires', async () => {
    for (const [url, protocol] of [
      [seller.mcpUrl, 'mcp'],
      [seller.a2aUrl, 'a2a'],
    ] as const) {
      const io = recordingIo();
      assert.equal(await main(['tasks', 'get', url, 'no-such-task', '--protocol', protocol], io), 1);
      assert.match(
        io.err(),
        /^adcp tasks: no such task "no-such-task" at .* \(get_task_status answered REFERENCE_NOT_FOUND: The referenced task was not found\.\) \[not_found\]/,
      );
      assert.equal(io.out(), '', 'not a failed task');
    }
  });

  it('throws not_found from getTaskStatus and waitFor for an unknown task id', async () => {
    const client = new AdcpClient({ url: seller.mcpUrl, protocol: 'mcp' });
    try {
      await assert.rejects(client.getTaskStatus('no-such-task'), { name: 'AdcpWireError', code: 'not_found' });
      const pending = {
        status: 'submitted',
        taskId: 'no-such-task',
        protocol: 'mcp',
        raw: null,
        data: undefined,
      } as const;
      await assert.rejects(client.waitFor(pending, { timeoutMs: 10_000 }), { code: 'not_found' });
    } finally {
      await client.close();
    }
  });

  it('exits 1 with the next step when cancelling an A2A task that does not exist', async () => {
    const io = recordingIo();
    assert.equal(await main(['tasks', 'cancel', seller.a2aUrl, 'no-such-task', '--protocol', 'a2a'], io), 1);
    assert.match(io.err(), /\[not_found\]\n  no such task/);
  });

  it('hints at --transport-task when an A2A id was read as an AdCP task_id', async () => {
    const client = new AdcpClient({ url: seller.a2aUrl, protocol: 'a2a' });
    const result = await client.call('get_products', { buying_mode: 'brief', brief: 'pets' });
    await client.close();
    const io = recordingIo();
    const code = await main(['tasks', 'get', seller.a2aUrl, result.transportTaskId ?? '', '--protocol', 'a2a'], io);
    assert.equal(code, 1);
    assert.match(
      io.err(),
      /was read as an AdCP task_id; if it is a transport task id \(A2A task, MCP Task\), add --transport-task/,
    );
  });

  it('exits 2 for an unknown action', async () => {
    const io = recordingIo();
    assert.equal(await main(['tasks', 'list', seller.mcpUrl, 'x'], io), 2);
    assert.match(io.err(), /the first argument is get or cancel, not 'list'/);
  });
});

describe('adcp tasks get at an MCP SDK seller that offers only the legacy tasks/get tool', () => {
  it('asks tasks/get (the tool the agent lists) and shows the task', async () => {
    const server = await startMcpTestServer({
      tools: [
        {
          name: 'tasks/get',
          handler: (args) => ({
            content: [],
            structuredContent: {
              task_id: String(args['task_id']),
              task_type: 'create_media_buy',
              status: 'completed',
              result: { media_buy_id: 'mb_7' },
            },
          }),
        },
      ],
    });
    try {
      const io = recordingIo();
      assert.equal(await main(['tasks', 'get', server.url, 't-7', '--json'], io), 0, io.err());
      const out = JSON.parse(io.out()) as { status: string; data: { media_buy_id?: string } };
      assert.equal(out.status, 'completed');
      assert.equal(out.data.media_buy_id, 'mb_7');
      const called = server.received
        .filter((m) => m['method'] === 'tools/call')
        .map((m) => (m['params'] as { name: string }).name);
      assert.deepEqual(called, ['tasks/get']);
    } finally {
      await server.close();
    }
  });
});
