// Issue 12, "Bad input": a forged principal header. The principal comes from the bearer token (or
// the socket's address when there is none), never from a header, argument or metadata the caller
// writes. Over MCP (official SDK client) and A2A (raw 1.0 JSON-RPC).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import type { AdcpToolDefinition } from '../../src/server/types.js';
import { ACTIVATED_HEADERS } from '../server/profile-activation.js';

const ALICE = `alice_${randomBytes(16).toString('hex')}`;
const FORGED: Record<string, string> = {
  'x-adcp-principal': 'bob',
  'x-principal': 'bob',
  'x-forwarded-user': 'bob',
  'x-remote-user': 'bob',
  'x-authenticated-user': 'bob',
  'x-user-id': 'bob',
  'x-forwarded-for': '10.9.9.9',
  forwarded: 'for=10.9.9.9;by=bob',
  'x-real-ip': '10.9.9.9',
};
const whoami = (name: string): AdcpToolDefinition => ({
  name,
  description: 'The principal the server saw.',
  handler: (_args, ctx) => ({ principal: ctx.principal }),
});

describe('forged principal headers (auth.tokens)', () => {
  let server: ListeningAdcpServer;
  before(async () => {
    server = await createAdcpServer({
      tools: [whoami('whoami'), whoami('whoami_public')],
      validateRequests: false,
      auth: { tokens: { [ALICE]: 'alice' }, publicTools: ['whoami_public'] },
    }).listen();
  });
  after(async () => server.close());

  const mcpWhoami = async (tool: string, headers: Record<string, string>, args: Record<string, unknown> = {}) => {
    const client = new Client({ name: 'forger', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers } }));
    try {
      const result = await client.callTool({ name: tool, arguments: args, _meta: { principal: 'bob' } });
      return (result.structuredContent as { principal?: string }).principal;
    } finally {
      await client.close();
    }
  };

  it('a token holder forging headers, arguments and _meta is still the token principal (MCP)', async () => {
    const principal = await mcpWhoami('whoami', { ...FORGED, authorization: `Bearer ${ALICE}` }, { principal: 'bob' });
    assert.equal(principal, 'alice');
  });

  it('an anonymous caller forging headers stays anonymous@<socket address> on a public tool (MCP)', async () => {
    assert.equal(await mcpWhoami('whoami_public', FORGED), 'anonymous@127.0.0.1');
  });

  it('an anonymous caller forging headers is refused on a protected tool (MCP)', async () => {
    await assert.rejects(mcpWhoami('whoami', FORGED), (e: { code?: unknown }) => e.code === 401);
  });

  it('forged headers and message metadata change nothing over A2A', async () => {
    const send = async (headers: Record<string, string>, skill: string) => {
      const response = await fetch(server.a2aUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...ACTIVATED_HEADERS, ...FORGED, ...headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: {
            message: {
              messageId: randomUUID(),
              role: 'ROLE_USER',
              metadata: { principal: 'bob' },
              parts: [{ data: { skill, input: { principal: 'bob' } } }],
            },
            metadata: { principal: 'bob' },
          },
        }),
      });
      return { status: response.status, text: await response.text() };
    };
    // The artifact's DataPart is the tool's answer (the history echoes the caller's own message).
    const answered = (text: string) => {
      const task = (
        JSON.parse(text) as { result: { task: { artifacts: { parts: { data?: { principal?: string } }[] }[] } } }
      ).result.task;
      return task.artifacts[0]?.parts.find((part) => part.data !== undefined)?.data?.principal;
    };
    assert.equal(answered((await send({ authorization: `Bearer ${ALICE}` }, 'whoami')).text), 'alice');
    assert.equal(answered((await send({}, 'whoami_public')).text), 'anonymous@127.0.0.1');
    assert.equal((await send({}, 'whoami')).status, 401);
  });
});
