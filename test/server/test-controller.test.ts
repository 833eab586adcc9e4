// comply_test_controller (comply-test-controller.md): served only when configured, refused to live
// accounts with FORBIDDEN, its own error vocabulary, and the compliance_testing capability block.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/index.js';
import { ControllerError } from '../../src/server/tools/test-controller.js';
import { assertTransition } from '../../src/server/tools/lifecycles.js';

type Json = Record<string, unknown>;

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'controller-probe', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

const capabilitiesTool = {
  name: 'get_adcp_capabilities',
  description: 'capabilities',
  handler: () => ({ adcp: { major_versions: [3] }, supported_protocols: ['media_buy'] }),
};

describe('comply_test_controller on createAdcpServer', () => {
  let sandbox: ListeningAdcpServer;
  let production: ListeningAdcpServer;
  let status = 'active';
  before(async () => {
    sandbox = await createAdcpServer({
      tools: [capabilitiesTool],
      authenticate: (req) => (req.headers.authorization === 'Bearer live-key' ? 'live-account' : 'sandbox-account'),
      testController: {
        isSandbox: (ctx) => ctx.principal !== 'live-account',
        scenarios: {
          force_media_buy_status(params) {
            if (params.media_buy_id !== 'mb_1') throw new ControllerError('NOT_FOUND', 'no such media buy');
            const previous = status;
            status = assertTransition('media_buy', status, params.status);
            return { previous_state: previous, current_state: status };
          },
          seed_product: () => ({ message: 'seeded' }),
        },
      },
    }).listen();
    production = await createAdcpServer({ tools: [capabilitiesTool] }).listen();
  });
  after(async () => {
    await sandbox.close();
    await production.close();
  });

  const call = async (client: Client, args: Json) =>
    (await client.callTool({ name: 'comply_test_controller', arguments: args })).structuredContent as Json;

  it('is absent from tools/list, the agent card and capabilities without testController, and unknown on call', async () => {
    const client = await connect(production.mcpUrl);
    try {
      const { tools } = await client.listTools();
      assert.equal(
        tools.some((t) => t.name === 'comply_test_controller'),
        false,
      );
      const capabilities = (await client.callTool({ name: 'get_adcp_capabilities', arguments: {} }))
        .structuredContent as Json;
      assert.equal(capabilities.compliance_testing, undefined);
      await assert.rejects(
        client.callTool({ name: 'comply_test_controller', arguments: { scenario: 'list_scenarios' } }),
        /Unknown tool/,
      );
      const card = (await (await fetch(`${production.url}/.well-known/agent-card.json`)).json()) as Json;
      assert.equal(JSON.stringify(card).includes('comply_test_controller'), false);
    } finally {
      await client.close();
    }
  });

  it('lists its scenarios, and advertises them all to 3.1 callers, those 3.0 can name to 3.0 ones', async () => {
    const client = await connect(sandbox.mcpUrl);
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'comply_test_controller'));
      const listed = await call(client, { scenario: 'list_scenarios', context: { correlation_id: 'c1' } });
      assert.deepEqual(listed.scenarios, ['force_media_buy_status', 'seed_product']);
      assert.equal(listed.success, true);
      assert.deepEqual(listed.context, { correlation_id: 'c1' });
      const capabilities = async (release: string) =>
        (await client.callTool({ name: 'get_adcp_capabilities', arguments: { adcp_version: release } }))
          .structuredContent as Json;
      // 3.1 opened compliance_testing.scenarios to any string; 3.0's enum has no seed_product.
      assert.deepEqual((await capabilities('3.1')).compliance_testing, {
        scenarios: ['force_media_buy_status', 'seed_product'],
      });
      assert.deepEqual((await capabilities('3.0')).compliance_testing, { scenarios: ['force_media_buy_status'] });
      const card = (await (await fetch(`${sandbox.url}/.well-known/agent-card.json`)).json()) as Json;
      assert.ok(JSON.stringify(card).includes('comply_test_controller'));
    } finally {
      await client.close();
    }
  });

  it('answers in its own vocabulary: UNKNOWN_SCENARIO, INVALID_PARAMS, NOT_FOUND, INVALID_TRANSITION', async () => {
    const client = await connect(sandbox.mcpUrl);
    try {
      // Not a scenario of the enum: still UNKNOWN_SCENARIO, never a schema error.
      assert.equal((await call(client, { scenario: 'nonexistent_scenario', params: {} })).error, 'UNKNOWN_SCENARIO');
      assert.equal((await call(client, { scenario: 'force_creative_status', params: {} })).error, 'UNKNOWN_SCENARIO');
      const missing = await call(client, { scenario: 'force_media_buy_status', params: {} });
      assert.equal(missing.success, false);
      assert.equal(missing.error, 'INVALID_PARAMS');
      const params = { media_buy_id: 'mb_x', status: 'paused' };
      assert.equal((await call(client, { scenario: 'force_media_buy_status', params })).error, 'NOT_FOUND');
      const done = await call(client, {
        scenario: 'force_media_buy_status',
        params: { media_buy_id: 'mb_1', status: 'completed' },
      });
      assert.deepEqual([done.success, done.previous_state, done.current_state], [true, 'active', 'completed']);
      const back = await call(client, {
        scenario: 'force_media_buy_status',
        params: { media_buy_id: 'mb_1', status: 'active' },
      });
      assert.deepEqual([back.success, back.error, back.current_state], [false, 'INVALID_TRANSITION', 'completed']);
    } finally {
      await client.close();
    }
  });

  it('refuses a live account with FORBIDDEN before dispatch, list_scenarios included', async () => {
    const client = await connect(sandbox.mcpUrl, { authorization: 'Bearer live-key' });
    try {
      for (const args of [
        { scenario: 'list_scenarios' },
        { scenario: 'force_media_buy_status', params: { media_buy_id: 'missing', status: 'paused' } },
      ]) {
        const answer = await call(client, { ...args, account: { sandbox: true } });
        assert.equal(answer.success, false);
        assert.equal(answer.error, 'FORBIDDEN');
      }
    } finally {
      await client.close();
    }
  });
});
