// get_adcp_capabilities as the server generates it, over the official MCP and A2A clients: the
// configuration (releases, idempotency window, webhook signing) and the tools decide it, a
// seller's override changes fields, and the answer is valid for each release a caller pins.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientFactory as ClientFactoryV03 } from 'a2a-sdk-v03/client';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { getValidator } from '../../src/schemas/adcp-validator.js';
import { describeIssues } from '../../src/schemas/validation-result.js';

type Json = Record<string, unknown>;

describe('createAdcpServer: generated get_adcp_capabilities', () => {
  let listening: ListeningAdcpServer;
  let mcp: Client;
  before(async () => {
    // Compiled before the server starts: a compile blocks the loop for seconds under load, long
    // enough for the server to drop the client's idle keep-alive socket between two calls.
    for (const release of ['3.0', '3.1']) getValidator(release).warm('get_adcp_capabilities');
    const { privateKey } = generateKeyPairSync('ed25519');
    const server = createAdcpServer({
      tools: [
        { name: 'get_signals', description: 'Signals.', handler: () => ({ signals: [] }) },
        { name: 'create_media_buy', description: 'Buy.', handler: () => ({ media_buy_id: 'mb_1', packages: [] }) },
      ],
      validateRequests: false,
      idempotency: { replayTtlSeconds: 7200 },
      requestTimeoutMs: 10_000,
      webhooks: { signingKey: { keyid: 'k1', alg: 'ed25519', privateKey } },
      capabilities: { account: { supported_billing: ['agent'] }, specialisms: ['sales-non-guaranteed'] },
    });
    listening = await server.listen();
    mcp = new Client({ name: 'capabilities-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(listening.mcpUrl)));
  });
  after(async () => {
    await mcp.close();
    await listening.close();
  });

  const callMcp = async (args: Json) =>
    ((await mcp.callTool({ name: 'get_adcp_capabilities', arguments: args })) as Json).structuredContent as Json;

  it('declares what the server enforces and the protocols of its tools', async () => {
    const body = await callMcp({ context: { correlation_id: 'c-1' } });
    assert.deepEqual(body.adcp, {
      major_versions: [3],
      supported_versions: ['3.0', '3.1'],
      idempotency: { supported: true, replay_ttl_seconds: 7200, in_flight_max_seconds: 15 },
    });
    assert.deepEqual(body.supported_protocols, ['media_buy', 'signals']);
    assert.deepEqual(body.webhook_signing, {
      supported: true,
      profile: 'adcp/webhook-signing/v1',
      algorithms: ['ed25519'],
      legacy_hmac_fallback: true,
    });
    assert.deepEqual(body.account, { supported_billing: ['agent'] });
    assert.deepEqual(body.specialisms, ['sales-non-guaranteed']);
    assert.deepEqual(body.context, { correlation_id: 'c-1' });
    assert.equal(body.status, 'completed');
  });

  for (const release of ['3.0', '3.1']) {
    it(`answers a caller pinned to ${release} with a body valid for ${release}`, async () => {
      const body = await callMcp({ adcp_version: release });
      assert.equal(body.adcp_version, release);
      const checked = getValidator(release).response('get_adcp_capabilities', body);
      assert.ok(checked.ok, checked.ok ? '' : describeIssues(checked.issues));
    });
  }

  it('narrows to the protocols asked for', async () => {
    const body = await callMcp({ protocols: ['signals'] });
    assert.deepEqual(body.supported_protocols, ['signals']);
  });

  it('serves the same document on A2A', async () => {
    const client = await new ClientFactoryV03().createFromUrl(listening.a2aUrl);
    const task = (await client.sendMessage({
      message: {
        kind: 'message',
        messageId: randomUUID(),
        role: 'user',
        parts: [{ kind: 'data', data: { skill: 'get_adcp_capabilities', input: {} } }],
      },
    })) as unknown as Json;
    assert.equal((task.status as Json).state, 'completed');
    const parts = ((task.artifacts as Json[])[0]!.parts as Json[]).filter((p) => p.kind === 'data');
    const data = parts[parts.length - 1]!.data as Json;
    assert.deepEqual((data.adcp as Json).idempotency, {
      supported: true,
      replay_ttl_seconds: 7200,
      in_flight_max_seconds: 15,
    });
  });
});
