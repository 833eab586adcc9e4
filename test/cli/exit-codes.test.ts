// The README's exit-code table, row by row, against a real reference seller (130: the demo's in
// test/demo/demo.test.ts, call --wait's in call-interrupt.test.ts; 1 for a failed demo step: in
// test/demo/bin.test.ts, as a real process). Each row: the code, then what makes a command exit with it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main.js';
import { startReferenceSeller } from '../../src/seller/index.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { recordingIo } from './fake-io.js';
import { DEAD_URL, fastSeller } from './seller.js';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMcpTestServer, type TestServer } from '../mcp/helpers/mcp-test-server.js';

// Schema-valid requests (the seller validates every call against the request schema).
const PRODUCTS = '{"buying_mode":"brief","brief":"pets"}';
const BUY =
  '{"account":{"brand":{"domain":"acmeoutdoor.example"},"operator":"pinnacle-agency.example"},"brand":{"domain":"acmeoutdoor.example"},"start_time":"asap","end_time":"2099-12-31T23:59:59Z","packages":[{"product_id":"olv_pets","pricing_option_id":"olv_pets-cpm","budget":5}]}';

describe('adcp exit codes (README table)', () => {
  let seller: ListeningAdcpServer;
  before(async () => {
    seller = await fastSeller();
  });
  after(async () => seller.close());

  it('0: the call completed', async () => {
    assert.equal(await main(['call', seller.mcpUrl, 'get_products', PRODUCTS], recordingIo()), 0);
  });

  it('0: async work accepted without --wait', async () => {
    assert.equal(await main(['call', seller.mcpUrl, 'create_media_buy', BUY], recordingIo()), 0);
  });

  it('1: the agent answered failed', async () => {
    const io = recordingIo();
    assert.equal(
      await main(['call', seller.mcpUrl, 'get_products', PRODUCTS, '--header', 'x-adcp-fail: POLICY_VIOLATION'], io),
      1,
    );
  });

  it('1: an unknown tool is the agent refusing, the same answer over MCP and A2A, with no --protocol hint', async () => {
    for (const url of [seller.mcpUrl, seller.a2aUrl]) {
      const io = recordingIo();
      assert.equal(await main(['call', url, 'no_such_tool'], io), 1);
      assert.match(io.out(), /^failed {2}no_such_tool via (mcp|a2a)\n/);
      assert.match(io.out(), /INVALID_REQUEST: Unknown (tool|skill)\./);
      assert.doesNotMatch(io.err(), /--protocol/);
    }
  });

  it('1: an unknown MCP Task id, on get and on cancel', async () => {
    const get = recordingIo();
    assert.equal(await main(['tasks', 'get', seller.mcpUrl, 'no-such-task', '--transport-task'], get), 1);
    const cancel = recordingIo();
    assert.equal(await main(['tasks', 'cancel', seller.mcpUrl, 'no-such-task'], cancel), 1);
    assert.match(cancel.err(), /refused: Task not found/);
  });

  it('1: cancelling an MCP Task that already finished', async () => {
    const io = recordingIo();
    // 2025 MCP Tasks: the caller asks for the task (on the 2026 era the server decides).
    assert.equal(
      await main(['call', seller.mcpUrl, 'get_products', PRODUCTS, '--task', '--json', '--mcp-era', 'legacy'], io),
      0,
    );
    const taskId = (JSON.parse(io.out()) as { transport_task_id?: string }).transport_task_id ?? '';
    assert.match(taskId, /\S/, io.out());
    const cancel = recordingIo();
    assert.equal(await main(['tasks', 'cancel', seller.mcpUrl, taskId], cancel), 1);
    assert.match(cancel.err(), /\[refused\]/);
  });

  it('0: a legacy slash tool name such as tasks/get is a tool name', async () => {
    const io = recordingIo();
    // The reference seller offers the legacy `tasks/get` tool beside get_task_status.
    const code = await main(['call', seller.mcpUrl, 'create_media_buy', BUY, '--json'], io);
    assert.equal(code, 0);
    const taskId = (JSON.parse(io.out()) as { task_id?: string }).task_id ?? '';
    const get = recordingIo();
    assert.equal(
      await main(['call', seller.mcpUrl, 'tasks/get', JSON.stringify({ task_id: taskId }), '--json'], get),
      0,
    );
    // The answer describes that task, in whatever state it has reached by now.
    const described = JSON.parse(get.out()) as { status: string; task_id?: string };
    assert.equal(described.task_id, taskId);
    assert.ok(['submitted', 'working', 'completed'].includes(described.status), described.status);
  });

  it('2: a usage error', async () => {
    assert.equal(await main(['call', seller.mcpUrl], recordingIo()), 2);
  });

  it('2: --task on a tool whose listing forbids MCP Tasks, said before anything is sent', async () => {
    const io = recordingIo();
    assert.equal(await main(['call', seller.mcpUrl, 'list_creatives', '{}', '--task'], io), 2);
    assert.match(io.err(), /list_creatives does not take MCP Tasks \(its listing says taskSupport: forbidden\)/);
  });

  it('2: --task over A2A, where every call is a task already', async () => {
    const io = recordingIo();
    const code = await main(['call', seller.a2aUrl, 'get_products', PRODUCTS, '--task', '--protocol', 'a2a'], io);
    assert.equal(code, 2);
    assert.match(io.err(), /task \(MCP Tasks\) is MCP only/);
  });

  it('3: nothing listens at the URL', async () => {
    assert.equal(await main(['call', DEAD_URL, 'get_products', '--timeout', '5'], recordingIo()), 3);
  });

  it('3 with --json: stdout still holds exactly one JSON document, the error', async () => {
    for (const argv of [
      ['call', DEAD_URL, 'get_products', '{}', '--json', '--timeout', '5'],
      ['tasks', 'get', DEAD_URL, 'some-task', '--json', '--timeout', '5'],
      ['discover', DEAD_URL, '--json', '--timeout', '5'],
    ]) {
      const io = recordingIo();
      assert.equal(await main(argv, io), 3, argv.join(' '));
      const doc = JSON.parse(io.out()) as { error: { code: string; message: string } };
      assert.equal(doc.error.code, 'network', argv[0]);
      assert.match(doc.error.message, /127\.0\.0\.1:9/);
    }
  });

  it('3: a path where nothing serves MCP reads as HTTP 404, not an SSE error', async () => {
    const io = recordingIo();
    const url = seller.mcpUrl.replace(/\/mcp$/, '/nope');
    assert.equal(await main(['call', url, 'get_products', '--protocol', 'mcp'], io), 3);
    assert.match(io.err(), /answered HTTP 404 while connecting \(nothing serves MCP at this path\) \[http_status\]/);
    assert.doesNotMatch(io.err(), /SSE error/);
  });

  it('4: --wait ran out of time', async () => {
    const slow = await startReferenceSeller({
      port: 0,
      host: '127.0.0.1',
      timings: { workingAfterMs: 60_000, completeAfterMs: 120_000 },
    });
    try {
      assert.equal(
        await main(['call', slow.mcpUrl, 'create_media_buy', BUY, '--wait', '--timeout', '5'], recordingIo()),
        4,
      );
    } finally {
      await slow.close();
    }
  });
});

// The statuses of row 1 that the reference seller never answers with, and the causes of row 3
// other than "nothing listens", from a real MCP SDK server and a loopback HTTP server.
describe('adcp exit codes (README table): every status of row 1, every cause of row 3', () => {
  let mcp: TestServer;
  let garbage: Server;
  let garbageUrl = '';
  const answer =
    (status: string, extra: Record<string, unknown> = {}) =>
    () => ({
      content: [{ type: 'text' as const, text: status }],
      structuredContent: { status, message: `the agent says ${status}`, ...extra },
    });
  before(async () => {
    mcp = await startMcpTestServer({
      tools: [
        { name: 'answers_rejected', handler: answer('rejected', { reason: 'POLICY' }) },
        { name: 'answers_canceled', handler: answer('canceled') },
        { name: 'answers_input_required', handler: answer('input-required', { reason: 'APPROVAL_REQUIRED' }) },
        { name: 'answers_auth_required', handler: answer('auth-required') },
        {
          name: 'never_answers',
          handler: () => new Promise((resolve) => setTimeout(() => resolve(answer('completed')()), 60_000).unref()),
        },
      ],
    });
    // Answers every request 200 with a body that is neither JSON nor SSE.
    garbage = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('this is not JSON-RPC');
    });
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    const address = garbage.address();
    garbageUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/mcp`;
  });
  after(async () => {
    garbage.closeAllConnections();
    await new Promise<void>((resolve) => garbage.close(() => resolve()));
    await mcp.close();
  });

  for (const [tool, status] of [
    ['answers_rejected', 'rejected'],
    ['answers_canceled', 'canceled'],
    ['answers_input_required', 'input-required'],
    ['answers_auth_required', 'auth-required'],
  ] as const) {
    it(`1: the agent answered ${status}`, async () => {
      const io = recordingIo();
      assert.equal(await main(['call', mcp.url, tool, '{}', '--protocol', 'mcp', '--json'], io), 1, io.err());
      assert.equal((JSON.parse(io.out()) as { status: string }).status, status);
    });
  }

  it('1: a conformance vector failed (here: the folder holds none)', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'adcp-exit-codes-'));
    try {
      const io = recordingIo();
      assert.equal(await main(['conformance', '--vectors', empty], io), 1);
      assert.match(io.err(), /no vectors found/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('3: the agent did not answer within --timeout', async () => {
    const io = recordingIo();
    assert.equal(await main(['call', mcp.url, 'never_answers', '{}', '--protocol', 'mcp', '--timeout', '3'], io), 3);
    assert.match(io.err(), /\[timeout\]/);
  });

  it('3: the answer is not MCP (protocol)', async () => {
    const io = recordingIo();
    const code = await main(['call', garbageUrl, 'get_products', '{}', '--protocol', 'mcp', '--timeout', '20'], io);
    assert.equal(code, 3, io.err());
    assert.match(io.err(), /\[protocol\]/);
  });
});
