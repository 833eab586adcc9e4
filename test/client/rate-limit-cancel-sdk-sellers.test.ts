// The buyer's rate-limit and cancel scenarios (AdcpClient and the adcp CLI) against sellers built
// on the official SDKs: an MCP SDK 1.x server and @a2a-js/sdk servers (1.x on the 1.0 wire, 0.3.x).
// The same scenarios against the @adcp/sdk framework seller are in test/interop/adcp-sdk-seller.test.ts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/index.js';
import { main } from '../../src/cli/main.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startMcpTestServer, type TestServer as McpServer } from '../mcp/helpers/mcp-test-server.js';
import { startServer, type ServerKind, type TestServer as A2AServer } from '../a2a/sdk-servers.js';
import { gate } from '../a2a/scripts.js';
import type { Script } from '../a2a/scenario.js';
import { recordingIo } from '../cli/fake-io.js';

const RATE_LIMITED = { code: 'RATE_LIMITED', message: 'Too many requests', retry_after: 1, recovery: 'transient' };
const DELIVERY = { currency: 'USD', media_buy_deliveries: [] };

/** One RATE_LIMITED answer, then the data: AdcpClient retries once, after the agent's 1 s. */
async function retriesOnceThenAnswers(url: string, protocol: 'mcp' | 'a2a'): Promise<void> {
  const client = new AdcpClient({ url, protocol, timeoutMs: 60_000 });
  try {
    const retries: number[] = [];
    const result = await client.call('get_media_buy_delivery', {}, { onRetry: (r) => retries.push(r.delayMs) });
    assert.equal(result.status, 'completed');
    assert.deepEqual(result.data, DELIVERY);
    assert.deepEqual(retries, [1000]);
  } finally {
    await client.close();
  }
}

/** RATE_LIMITED every time: `adcp call` gives up after 3 attempts, exit 1, saying so. */
async function cliGivesUpAfterThreeAttempts(url: string, protocol: 'mcp' | 'a2a'): Promise<void> {
  const io = recordingIo();
  assert.equal(await main(['call', url, 'get_media_buy_delivery', '{}', '--protocol', protocol], io), 1);
  assert.match(io.err(), /RATE_LIMITED: attempt 3 of 3, waiting 1 s as the agent asked/);
  assert.match(io.out(), /after 3 attempts/);
}

describe('rate limits and cancel against an MCP SDK seller', () => {
  let server: McpServer;
  let limited = 0;
  before(async () => {
    server = await startMcpTestServer({
      tools: [
        {
          name: 'get_media_buy_delivery',
          handler: (): CallToolResult => {
            if (limited > 0) {
              limited--;
              return {
                content: [{ type: 'text', text: JSON.stringify({ adcp_error: RATE_LIMITED }) }],
                structuredContent: { adcp_error: RATE_LIMITED },
                isError: true,
              };
            }
            return { content: [{ type: 'text', text: 'ok' }], structuredContent: DELIVERY };
          },
        },
        {
          name: 'slow',
          taskSupport: 'optional',
          taskPolls: 100_000,
          handler: () => ({ content: [], structuredContent: { status: 'completed' } }),
        },
      ],
      tasks: true,
    });
  });
  after(async () => server.close());

  it('retries a RATE_LIMITED answer after its retry_after and returns the data', async () => {
    limited = 1;
    await retriesOnceThenAnswers(server.url, 'mcp');
  });

  it('adcp call exits 1 after its attempts, saying how many', async () => {
    limited = 10;
    await cliGivesUpAfterThreeAttempts(server.url, 'mcp');
    limited = 0;
  });

  it('cancels a running MCP Task: the call ends canceled, and a second cancel exits 1', async () => {
    const client = new AdcpClient({ url: server.url, protocol: 'mcp', mcpEra: 'legacy', timeoutMs: 60_000 });
    try {
      let taskId = '';
      const running = client.call(
        'slow' as string,
        {},
        {
          task: {},
          onProgress: (e) => {
            taskId = e.taskId ?? taskId;
          },
        },
      );
      for (let i = 0; i < 1000 && taskId === ''; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.match(taskId, /\S/);
      assert.equal((await client.cancelTransportTask(taskId)).status, 'canceled');
      assert.equal((await running).status, 'canceled');
      assert.equal((await client.getTransportTask(taskId)).status, 'canceled');
      // MCP Tasks belong to the session that made them: cancel again through the same client.
      await assert.rejects(
        client.cancelTransportTask(taskId),
        (e: unknown) => (e as { code?: string }).code === 'refused',
      );
    } finally {
      await client.close();
    }
  });
});

for (const kind of ['v1', 'v0.3'] as ServerKind[]) {
  describe(`rate limits and cancel against an @a2a-js/sdk ${kind} seller`, () => {
    let server: A2AServer;
    let limited = 0;
    const hold = gate();
    const script: Script = (_skill, input) => {
      if (input['scenario'] === 'held') {
        return [{ state: 'working' }, { wait: hold.wait }, { state: 'completed' }];
      }
      if (limited > 0) {
        limited--;
        return [{ artifact: { id: 'error', parts: [{ data: { adcp_error: RATE_LIMITED } }] } }, { state: 'failed' }];
      }
      return [{ artifact: { id: 'result', parts: [{ data: DELIVERY }] } }, { state: 'completed' }];
    };
    before(async () => {
      server = await startServer(kind, script);
    });
    after(async () => {
      hold.open();
      await server.close();
    });

    it('retries a RATE_LIMITED answer after its retry_after and returns the data', async () => {
      limited = 1;
      await retriesOnceThenAnswers(server.base, 'a2a');
    });

    it('adcp call exits 1 after its attempts, saying how many', async () => {
      limited = 10;
      await cliGivesUpAfterThreeAttempts(server.base, 'a2a');
      limited = 0;
    });

    it('cancels a running task: waitFor then says canceled, and adcp tasks cancel again says so', async () => {
      const client = new AdcpClient({ url: server.base, protocol: 'a2a', timeoutMs: 60_000 });
      try {
        const first = await client.call('review_work' as string, { scenario: 'held' }, { returnImmediately: true });
        assert.ok(['submitted', 'working'].includes(first.status), first.status);
        const id = first.transportTaskId ?? '';
        assert.equal((await client.cancelTransportTask(id)).status, 'canceled');
        assert.equal((await client.waitFor(first, { pollIntervalMs: 100, timeoutMs: 30_000 })).status, 'canceled');
        // Cancelling it again: the 1.x SDK answers the canceled task (exit 0, "the task is
        // canceled"), the 0.3 SDK refuses a task that has ended (the agent saying no: exit 1).
        const io = recordingIo();
        const code = await main(['tasks', 'cancel', server.base, id, '--protocol', 'a2a', '--json'], io);
        if (kind === 'v1') {
          assert.equal(code, 0, io.err());
          assert.equal((JSON.parse(io.out()) as { status: string }).status, 'canceled');
        } else {
          assert.equal(code, 1, io.err());
          assert.match(io.err(), /refused/);
        }
      } finally {
        await client.close();
      }
    });
  });
}
