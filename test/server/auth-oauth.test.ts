// OAuth 2.1 bearer tokens as the MCP authorization spec describes, end to end: RFC 9728 metadata
// per endpoint, `WWW-Authenticate` with `resource_metadata`, JWT access tokens verified against
// the authorization server's JWKS (jwtVerifier), audience bound to the endpoint, expiry, scopes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AdcpClient } from '../../src/client/index.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { jwtVerifier } from '../../src/server/auth/jwt-verifier.js';

const ISSUER = 'https://auth.example';
const KID = 'as-key-1';

describe('createAdcpServer auth.oauth (reference seller, JWT access tokens)', () => {
  let seller: ReferenceSeller;
  let privateKey: CryptoKey;
  const clients: AdcpClient[] = [];
  const mint = (
    claims: { aud: string | string[]; sub?: string; exp?: number; iss?: string; scope?: string },
    key: CryptoKey = privateKey,
  ) =>
    new SignJWT({ ...(claims.scope === undefined ? {} : { scope: claims.scope }) })
      .setProtectedHeader({ alg: 'ES256', kid: KID, typ: 'at+jwt' })
      .setIssuer(claims.iss ?? ISSUER)
      .setSubject(claims.sub ?? 'carol')
      .setAudience(claims.aud)
      .setIssuedAt()
      .setExpirationTime(claims.exp ?? Math.floor(Date.now() / 1000) + 600)
      .sign(key);

  before(async () => {
    const pair = await generateKeyPair('ES256');
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: KID, alg: 'ES256', use: 'sig' };
    seller = await startReferenceSeller({
      auth: {
        oauth: { authorizationServers: [ISSUER], verifier: jwtVerifier({ issuer: ISSUER, jwks: { keys: [jwk] } }) },
      },
    });
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await seller.close();
  });

  const probe = async (url: string, authorization?: string) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(authorization === undefined ? {} : { authorization }),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_creatives', arguments: {} },
      }),
    });
    return {
      status: response.status,
      challenge: response.headers.get('www-authenticate') ?? '',
      text: await response.text(),
    };
  };

  it('serves RFC 9728 metadata whose resource is the exact endpoint URL, for MCP, A2A and the origin', async () => {
    for (const [path, resource] of [
      ['/.well-known/oauth-protected-resource/mcp', seller.mcpUrl],
      ['/.well-known/oauth-protected-resource/a2a', seller.a2aUrl],
      ['/.well-known/oauth-protected-resource', seller.url],
    ] as const) {
      const response = await fetch(`${seller.url}${path}`);
      assert.equal(response.status, 200, path);
      assert.deepEqual(await response.json(), {
        resource,
        authorization_servers: [ISSUER],
        bearer_methods_supported: ['header'],
      });
    }
    assert.equal((await fetch(`${seller.url}/.well-known/oauth-protected-resource/nothing`)).status, 404);
  });

  it('answers a call without a token with 401 naming the metadata (resource_metadata)', async () => {
    const refused = await probe(seller.mcpUrl);
    assert.equal(refused.status, 401);
    assert.equal(
      refused.challenge,
      `Bearer realm="${seller.mcpUrl}", resource_metadata="${seller.url}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('refuses an expired token with 401 invalid_token "expired"', async () => {
    const expired = await mint({ aud: seller.mcpUrl, exp: Math.floor(Date.now() / 1000) - 5 });
    const refused = await probe(seller.mcpUrl, `Bearer ${expired}`);
    assert.equal(refused.status, 401);
    assert.equal(
      refused.challenge,
      `Bearer realm="${seller.mcpUrl}", error="invalid_token", error_description="The access token expired", resource_metadata="${seller.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    assert.ok(!refused.text.includes(expired));
  });

  it('refuses a token for another audience, another issuer, another key, or a forged signature', async () => {
    const stranger = (await generateKeyPair('ES256')).privateKey;
    const cases: [string, string][] = [
      [await mint({ aud: 'https://other.example/mcp' }), 'The access token was not issued for this resource'],
      [await mint({ aud: seller.a2aUrl }), 'The access token was not issued for this resource'],
      [await mint({ aud: seller.mcpUrl, iss: 'https://evil.example' }), 'The access token is not valid'],
      [await mint({ aud: seller.mcpUrl }, stranger), 'The access token is not valid'],
      [`${(await mint({ aud: seller.mcpUrl })).slice(0, -6)}AAAAAA`, 'The access token is not valid'],
    ];
    for (const [token, description] of cases) {
      const refused = await probe(seller.mcpUrl, `Bearer ${token}`);
      assert.equal(refused.status, 401, description);
      assert.match(refused.challenge, new RegExp(`error="invalid_token", error_description="${description}"`));
    }
  });

  it('accepts a valid token with the official MCP SDK client (audience: the MCP endpoint)', async () => {
    const token = await mint({ aud: seller.mcpUrl });
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(seller.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: 'list_creatives', arguments: {} });
      assert.equal(result.isError, undefined, JSON.stringify(result));
    } finally {
      await client.close();
    }
  });

  it('AdcpClient over A2A: a token for the A2A endpoint or the origin works, an expired one is refused', async () => {
    const open = (auth: string) => {
      const client = new AdcpClient({ url: seller.url, protocol: 'a2a', auth, retry: false });
      clients.push(client);
      return client;
    };
    for (const aud of [seller.a2aUrl, seller.url]) {
      const result = await open(await mint({ aud })).call('list_creatives', {});
      assert.equal(result.status, 'completed', JSON.stringify(result));
    }
    const expired = await mint({ aud: seller.a2aUrl, exp: Math.floor(Date.now() / 1000) - 5 });
    // The 401's JSON-RPC error carries the seller's adcp_error, read as its answer (as on MCP).
    const refused = await open(expired).call('list_creatives', {});
    assert.equal(refused.status, 'failed', JSON.stringify(refused));
    assert.equal(refused.error?.code, 'AUTH_INVALID');
  });

  it('declares the oauth2 scheme on the agent card, pointing at the issuer metadata', async () => {
    const card = (await (await fetch(`${seller.url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    const schemes = card.securitySchemes as Record<string, Record<string, unknown>>;
    assert.equal(schemes.oauth2?.type, 'oauth2');
    assert.equal(schemes.oauth2?.oauth2MetadataUrl, `${ISSUER}/.well-known/oauth-authorization-server`);
    assert.deepEqual(schemes.oauth2?.oauth2SecurityScheme, {
      description: schemes.oauth2?.description,
      oauth2MetadataUrl: `${ISSUER}/.well-known/oauth-authorization-server`,
    });
    assert.deepEqual(card.securityRequirements, [{ schemes: { oauth2: { list: [] } } }]);
  });
});

describe('auth.oauth scopes and verifier failures', () => {
  let server: ListeningAdcpServer;
  const valid = `ok-${randomBytes(8).toString('hex')}`;
  before(async () => {
    server = await createAdcpServer({
      tools: [{ name: 'whoami', description: 'Who.', handler: (_args, ctx) => ({ principal: ctx.principal }) }],
      validateRequests: false,
      auth: {
        oauth: {
          authorizationServers: ['http://127.0.0.1:9/'],
          requiredScopes: ['adcp:buy'],
          verifier: {
            async verifyAccessToken(token) {
              if (token === 'verifier-throws-0000') throw new Error(`leaky verifier message ${token}`);
              return {
                token,
                clientId: 'client-1',
                scopes: token === valid ? ['adcp:buy'] : ['adcp:read'],
                expiresAt: Math.floor(Date.now() / 1000) + 60,
                extra: { aud: [server.url] },
              };
            },
          },
        },
      },
    }).listen();
  });
  after(async () => server.close());

  const call = (token: string) =>
    fetch(server.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    });

  it('refuses a token without the required scope with 403 insufficient_scope naming the scope', async () => {
    const response = await call('read-only-token-0000');
    assert.equal(response.status, 403);
    assert.match(response.headers.get('www-authenticate') ?? '', /error="insufficient_scope", .*scope="adcp:buy"/);
  });

  it("answers a verifier's exception with a fixed 401 description, never its message", async () => {
    const response = await call('verifier-throws-0000');
    assert.equal(response.status, 401);
    const text = (response.headers.get('www-authenticate') ?? '') + (await response.text());
    assert.doesNotMatch(text, /leaky/);
  });

  it('takes the principal from clientId when the token names no sub (oauth:<clientId>)', async () => {
    const client = new Client({ name: 'oauth-scope', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${valid}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      assert.equal((result.structuredContent as { principal?: string }).principal, 'oauth:client-1');
    } finally {
      await client.close();
    }
  });
});
