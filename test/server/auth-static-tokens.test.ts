// Static bearer tokens end to end against the reference seller: the security storyboard's probes
// (raw tools/call without and with a bad key), then the official MCP SDK client, both @a2a-js/sdk
// clients and AdcpClient with no token, a wrong token and a right one; the agent card's schemes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ClientFactory as ClientFactoryV1,
  ClientFactoryOptions as OptionsV1,
  JsonRpcTransportFactory as JsonRpcV1,
} from '@a2a-js/sdk/client';
import {
  ClientFactory as ClientFactoryV03,
  ClientFactoryOptions as OptionsV03,
  JsonRpcTransportFactory as JsonRpcV03,
} from 'a2a-sdk-v03/client';
import { AdcpClient } from '../../src/client/index.js';
import { AdcpWireError } from '../../src/index.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { productsRequest } from '../../src/seller/sample-requests.js';
import { ACTIVATED_CALL } from './profile-activation.js';

const ALICE = `alice-${randomBytes(16).toString('hex')}`;
const BOB = `bob-${randomBytes(16).toString('hex')}`;
const WRONG = `invalid-${randomBytes(32).toString('hex')}`;

/** A fetch that adds `authorization` to every request (how an SDK client is given a key). */
const withBearer =
  (token: string | undefined): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };

describe('createAdcpServer auth.tokens (reference seller)', () => {
  let seller: ReferenceSeller;
  const clients: AdcpClient[] = [];
  before(async () => {
    seller = await startReferenceSeller({ auth: { tokens: { [ALICE]: 'alice', [BOB]: 'bob' } } });
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await seller.close();
  });

  const rawProbe = async (tool: string, authorization?: string) => {
    const response = await fetch(seller.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(authorization === undefined ? {} : { authorization }),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: tool, arguments: {} } }),
    });
    const text = await response.text();
    return { status: response.status, challenge: response.headers.get('www-authenticate'), text };
  };

  it('refuses the storyboard probe without credentials: 401, Bearer challenge, AUTH_MISSING (-32028)', async () => {
    const probe = await rawProbe('list_creatives');
    assert.equal(probe.status, 401);
    assert.equal(probe.challenge, `Bearer realm="${seller.mcpUrl}"`);
    const body = JSON.parse(probe.text) as {
      id: unknown;
      error: { code: number; data: { adcp_error: { code: string; recovery: string } } };
    };
    assert.equal(body.id, 7);
    assert.equal(body.error.code, -32028);
    assert.deepEqual(
      [body.error.data.adcp_error.code, body.error.data.adcp_error.recovery],
      ['AUTH_MISSING', 'correctable'],
    );
  });

  it('refuses a random key and a JWT-shaped token with 401 invalid_token, echoing neither', async () => {
    const jwtShaped = [
      { alg: 'RS256', typ: 'JWT' },
      { sub: 'invalid', aud: seller.mcpUrl },
    ]
      .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url'))
      .concat(randomBytes(32).toString('base64url'))
      .join('.');
    for (const token of [WRONG, jwtShaped]) {
      const probe = await rawProbe('list_creatives', `Bearer ${token}`);
      assert.equal(probe.status, 401);
      assert.match(probe.challenge ?? '', /^Bearer realm="[^"]+", error="invalid_token", error_description="/);
      assert.equal(JSON.parse(probe.text).error.data.adcp_error.code, 'AUTH_INVALID');
      assert.ok(!probe.text.includes(token) && !(probe.challenge ?? '').includes(token));
    }
  });

  it('refuses a bad key even on a public tool and on initialize (credentials sent are checked)', async () => {
    assert.equal((await rawProbe('get_adcp_capabilities', `Bearer ${WRONG}`)).status, 401);
    assert.equal((await rawProbe('get_adcp_capabilities', 'Basic YWxpY2U6c2VjcmV0')).status, 401);
  });

  it('ignores a token in the query string (RFC 6750: never in the URI)', async () => {
    const response = await fetch(`${seller.mcpUrl}?access_token=${ALICE}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_creatives', arguments: {} },
      }),
    });
    assert.equal(response.status, 401);
  });

  const mcpClient = async (token?: string) => {
    const client = new Client({ name: 'auth-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(seller.mcpUrl), { fetch: withBearer(token) }));
    return client;
  };

  it('the official MCP SDK client: anonymous discovery works, a protected tool is refused with 401', async () => {
    const client = await mcpClient();
    try {
      const tools = await client.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'list_creatives'));
      const products = await client.callTool({ name: 'get_products', arguments: productsRequest('coffee') });
      assert.equal(products.isError, undefined);
      await assert.rejects(
        client.callTool({ name: 'list_creatives', arguments: {} }),
        (e: { code?: unknown; message: string }) => {
          assert.equal(e.code, 401);
          assert.match(e.message, /AUTH_MISSING/);
          return true;
        },
      );
    } finally {
      await client.close();
    }
  });

  it('the official MCP SDK client: a wrong token fails to connect, the right one lists creatives', async () => {
    await assert.rejects(mcpClient(WRONG), (e: { code?: unknown; message: string }) => {
      assert.equal(e.code, 401);
      assert.match(e.message, /AUTH_INVALID/);
      return true;
    });
    const client = await mcpClient(ALICE);
    try {
      const result = await client.callTool({ name: 'list_creatives', arguments: {} });
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.ok(Array.isArray((result.structuredContent as { creatives?: unknown }).creatives));
    } finally {
      await client.close();
    }
  });

  const v1Message = (skill: string, input: object) =>
    ({
      tenant: '',
      message: {
        messageId: randomUUID(),
        contextId: '',
        taskId: '',
        role: 1,
        parts: [
          { content: { $case: 'data', value: { skill, input } }, metadata: undefined, filename: '', mediaType: '' },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    }) as never;

  it('the official @a2a-js/sdk 1.x client: public skill open, protected skill needs the token', async () => {
    const factory = (token?: string) =>
      new ClientFactoryV1(
        OptionsV1.createFrom(OptionsV1.default, { transports: [new JsonRpcV1({ fetchImpl: withBearer(token) })] }),
      ).createFromUrl(seller.a2aUrl);
    const anonymous = await factory();
    const products = (await anonymous.sendMessage(
      v1Message('get_products', productsRequest('ctv')),
      ACTIVATED_CALL,
    )) as unknown as {
      status: { state: number };
    };
    assert.equal(products.status.state, 3); // TASK_STATE_COMPLETED
    await assert.rejects(
      anonymous.sendMessage(v1Message('list_creatives', {}), ACTIVATED_CALL),
      /Authentication required/,
    );
    await assert.rejects(
      (await factory(WRONG)).sendMessage(v1Message('get_products', productsRequest()), ACTIVATED_CALL),
      /The token is not valid/,
    );
    const alice = await factory(ALICE);
    const listed = (await alice.sendMessage(v1Message('list_creatives', {}), ACTIVATED_CALL)) as unknown as {
      status: { state: number };
    };
    assert.equal(listed.status.state, 3);
  });

  it('the official @a2a-js/sdk 0.3 client: protected skill needs the token', async () => {
    const factory = (token?: string) =>
      new ClientFactoryV03(
        OptionsV03.createFrom(OptionsV03.default, { transports: [new JsonRpcV03({ fetchImpl: withBearer(token) })] }),
      ).createFromUrl(seller.a2aUrl);
    const send = async (token: string | undefined, skill: string) =>
      (await factory(token)).sendMessage({
        message: {
          kind: 'message',
          messageId: randomUUID(),
          role: 'user',
          parts: [{ kind: 'data', data: { skill, input: {} } }],
        },
      }) as unknown as Promise<{ status: { state: string } }>;
    await assert.rejects(send(undefined, 'list_creatives'), /-32028.*AUTH_MISSING/);
    await assert.rejects(send(WRONG, 'list_creatives'), /-32028.*AUTH_INVALID/);
    assert.equal((await send(BOB, 'list_creatives')).status.state, 'completed');
  });

  for (const protocol of ['mcp', 'a2a'] as const) {
    const open = (auth?: string) => {
      const client = new AdcpClient({
        url: protocol === 'mcp' ? seller.mcpUrl : seller.url,
        protocol,
        ...(auth === undefined ? {} : { auth }),
        retry: false,
        timeoutMs: 10_000,
      });
      clients.push(client);
      return client;
    };
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (e: unknown) => e,
      );
    it(`AdcpClient over ${protocol}: no token and a wrong token are refused, the token lists creatives`, async () => {
      if (protocol === 'mcp') {
        // The wrong token meets the session's first request: the refused token is named, not echoed.
        const wrong = await refusal(open(WRONG).call('list_creatives', {}));
        assert.ok(wrong instanceof AdcpWireError, String(wrong));
        assert.equal(wrong.status, 401);
        assert.equal(wrong.tokenError, 'invalid_token');
        assert.ok(!wrong.message.includes(WRONG));
        // The MCP session opens anonymously; the protected call's JSON-RPC error is read as AdCP's.
        const anonymous = await open().call('list_creatives', {});
        assert.equal(anonymous.status, 'failed');
        assert.equal(anonymous.error?.code, 'AUTH_MISSING');
      } else {
        // A2A: the 401's JSON-RPC error carries the seller's adcp_error, read as its answer.
        const wrong = await open(WRONG).call('list_creatives', {});
        assert.equal(wrong.status, 'failed');
        assert.equal(wrong.error?.code, 'AUTH_INVALID');
        assert.ok(!JSON.stringify(wrong).includes(WRONG));
        const anonymous = await open().call('list_creatives', {});
        assert.equal(anonymous.status, 'failed');
        assert.equal(anonymous.error?.code, 'AUTH_MISSING');
      }
      const result = await open(ALICE).call('list_creatives', {});
      assert.equal(result.status, 'completed', JSON.stringify(result));
      const capabilities = await open().call('get_adcp_capabilities', {});
      assert.equal(capabilities.status, 'completed');
    });
  }

  it('the agent card declares the bearer scheme in the A2A 1.0 and 0.3 shapes', async () => {
    const card = (await (await fetch(`${seller.url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    assert.deepEqual(card.securitySchemes, {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description: 'AdCP API key: Authorization: Bearer <key>',
        httpAuthSecurityScheme: { scheme: 'Bearer', description: 'AdCP API key: Authorization: Bearer <key>' },
      },
    });
    assert.deepEqual(card.security, [{ bearer: [] }]);
    assert.deepEqual(card.securityRequirements, [{ schemes: { bearer: { list: [] } } }]);
  });

  it('serves no protected-resource metadata without OAuth (static-credential agents must not)', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      assert.equal((await fetch(`${seller.url}${path}`)).status, 404);
    }
  });
});
