// The brand_json_url key-discovery chain (security.md, "Discovering an agent's signing keys via
// brand_json_url", steps 1-8) against real HTTP: brand.json and JWKS documents are served by a
// loopback server; the chain's fetch maps each https://<host>/<path> it asks for onto that server
// (no DNS or TLS here for made-up hosts), so redirects, status codes, sizes and bodies are real.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { brandJsonKeys, type BrandJsonKeysOptions } from '../../src/signing/brand-json-keys.js';
import { signRequest } from '../../src/signing/sign-request.js';
import { verifyRequestSignature } from '../../src/signing/verify-request-signature.js';
import { MemoryReplayStore } from '../../src/signing/replay-store.js';
import type { Jwk } from '../../src/signing/jwks.js';
import { registrableDomain } from '../../src/signing/registrable-domain.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { productsRequest } from '../../src/seller/sample-requests.js';
import { AdcpClient } from '../../src/client/adcp-client.js';
import { AdcpWireError } from '../../src/core/wire-error.js';
import { ACTIVATED_HEADERS, sendMessageBody } from '../server/profile-activation.js';
import { agentCapabilities } from '../../src/client/agent-capabilities.js';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const KID = 'acme-buyer-2026';
const jwk: Jwk = {
  ...(publicKey.export({ format: 'jwk' }) as Jwk),
  kid: KID,
  alg: 'EdDSA',
  use: 'sig',
  key_ops: ['verify'],
  adcp_use: 'request-signing',
};
const AGENT = 'https://buy.acme.example/mcp';
const BRAND = 'https://acme.example/.well-known/brand.json';

/** What the loopback server answers, keyed by `host + path`; a function for redirects and oddities. */
type Route = { status?: number; body?: string; headers?: Record<string, string> };
const routes = new Map<string, Route>();
const requests: string[] = [];

let server: Server;
let port = 0;
const loopbackFetch: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  requests.push(url.host + url.pathname);
  return fetch(`http://127.0.0.1:${port}/${url.host}${url.pathname}`, init);
};

const brandDoc = (agents: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ version: '1.0', house: { domain: 'acme.example', name: 'Acme', agents }, ...extra });
const capabilities = (identity: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  adcp: { major_versions: [3] },
  identity,
  ...extra,
});

function chain(overrides: Partial<BrandJsonKeysOptions> & { caps?: unknown } = {}) {
  const { caps, ...rest } = overrides;
  return brandJsonKeys({
    agents: [AGENT],
    capabilities: () => Promise.resolve(caps ?? capabilities({ brand_json_url: BRAND })),
    fetch: loopbackFetch,
    ...rest,
  });
}

function signed() {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_products' } });
  const url = 'https://seller.example/mcp';
  const headers = signRequest(
    { method: 'POST', url, headers: { 'content-type': 'application/json' }, body },
    { keyid: KID, privateKey, alg: 'ed25519' },
  );
  return { method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, body };
}

async function verifyWith(source: ReturnType<typeof chain>) {
  const result = await verifyRequestSignature(signed(), { jwks: source, replay: new MemoryReplayStore() });
  return result.ok ? (result.signed ? `signed:${result.keyid}` : 'unsigned') : result.code;
}

function serve(path: string, route: Route) {
  routes.set(path, route);
}

describe('brandJsonKeys: the brand_json_url chain', () => {
  before(async () => {
    server = createServer((req, res) => {
      const route = routes.get((req.url ?? '/').slice(1));
      if (route === undefined) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(route.status ?? 200, { 'content-type': 'application/json', ...route.headers });
      res.end(route.body ?? '');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const reset = (
    agents: unknown[] = [{ type: 'buying', url: AGENT, jwks_uri: 'https://keys.acme.example/jwks.json' }],
  ) => {
    routes.clear();
    requests.length = 0;
    serve('acme.example/.well-known/brand.json', { body: brandDoc(agents) });
    serve('keys.acme.example/jwks.json', { body: JSON.stringify({ keys: [jwk] }) });
  };

  it('resolves the key through capabilities, brand.json, agents[] and jwks_uri, and verifies a signature', async () => {
    reset();
    assert.equal(await verifyWith(chain()), `signed:${KID}`);
    assert.deepEqual(requests, ['acme.example/.well-known/brand.json', 'keys.acme.example/jwks.json']);
  });

  it('caches the resolved chain (no second fetch of brand.json within cacheMs)', async () => {
    reset();
    const source = chain();
    await source.get(KID);
    await source.get(KID);
    assert.equal(requests.filter((r) => r.endsWith('brand.json')).length, 1);
  });

  it('defaults jwks_uri to /.well-known/jwks.json at the agent origin', async () => {
    reset([{ type: 'buying', url: AGENT }]);
    serve('buy.acme.example/.well-known/jwks.json', { body: JSON.stringify({ keys: [jwk] }) });
    assert.equal(await verifyWith(chain()), `signed:${KID}`);
  });

  it('takes brand_json_url from onboarding without a capabilities call', async () => {
    reset();
    const source = brandJsonKeys({ agents: [{ url: AGENT, brandJsonUrl: BRAND }], fetch: loopbackFetch });
    assert.equal(await verifyWith(source), `signed:${KID}`);
  });

  it('refuses an absent or non-https brand_json_url (request_signature_brand_json_url_missing)', async () => {
    reset();
    assert.equal(await verifyWith(chain({ caps: capabilities({}) })), 'request_signature_brand_json_url_missing');
    const http = capabilities({ brand_json_url: 'http://acme.example/.well-known/brand.json' });
    assert.equal(await verifyWith(chain({ caps: http })), 'request_signature_brand_json_url_missing');
    assert.deepEqual(requests, []);
  });

  it('answers request_signature_capabilities_unreachable when the capabilities call fails', async () => {
    reset();
    const source = chain({ capabilities: () => Promise.reject(new Error('connect ECONNREFUSED')) });
    assert.equal(await verifyWith(source), 'request_signature_capabilities_unreachable');
  });

  it('binds origins by eTLD+1 (pinned PSL, private section included) or authorized_operators', async () => {
    reset();
    const other = 'https://agent.other.example/mcp';
    const routesFor = (extra: Record<string, unknown>) =>
      serve('acme.example/.well-known/brand.json', {
        body: brandDoc([{ url: other, jwks_uri: 'https://keys.acme.example/jwks.json' }], extra),
      });
    routesFor({});
    const open = () =>
      brandJsonKeys({ agents: [{ url: other, brandJsonUrl: BRAND }], fetch: loopbackFetch, negativeCacheMs: 0 });
    assert.equal(await verifyWith(open()), 'request_signature_brand_origin_mismatch');
    routesFor({ authorized_operators: [{ domain: 'other.example', brands: ['*'] }] });
    assert.equal(await verifyWith(open()), `signed:${KID}`);
    // vercel.app is a public suffix (PSL private section): two tenants are two registrable domains.
    assert.equal(registrableDomain('evil.vercel.app'), 'evil.vercel.app');
    assert.notEqual(registrableDomain('evil.vercel.app'), registrableDomain('acme.vercel.app'));
    assert.equal(registrableDomain('buy.ACME.example'), 'acme.example');
    assert.equal(registrableDomain('agent.bücher.example'), registrableDomain('xn--bcher-kva.example'));
    assert.equal(registrableDomain('127.0.0.1'), undefined);
  });

  it('matches agents[].url byte for byte (a trailing slash is another agent)', async () => {
    reset([{ url: `${AGENT}/`, jwks_uri: 'https://keys.acme.example/jwks.json' }]);
    assert.equal(await verifyWith(chain()), 'request_signature_agent_not_in_brand_json');
  });

  it('refuses two agents[] entries with the agent URL (request_signature_brand_json_ambiguous)', async () => {
    reset([
      { url: AGENT, jwks_uri: 'https://keys.acme.example/jwks.json' },
      { url: AGENT, jwks_uri: 'https://other-keys.acme.example/jwks.json' },
    ]);
    assert.equal(await verifyWith(chain()), 'request_signature_brand_json_ambiguous');
  });

  it('does not follow a brand.json redirect, and reads 404 as unreachable', async () => {
    reset();
    serve('acme.example/.well-known/brand.json', { status: 302, headers: { location: 'https://evil.example/b.json' } });
    assert.equal(await verifyWith(chain()), 'request_signature_brand_json_unreachable');
    assert.ok(!requests.some((r) => r.startsWith('evil.example')));
    routes.delete('acme.example/.well-known/brand.json');
    assert.equal(await verifyWith(chain()), 'request_signature_brand_json_unreachable');
  });

  it('refuses a brand.json over 256 KiB, with duplicate keys, or not JSON (request_signature_brand_json_malformed)', async () => {
    reset();
    serve('acme.example/.well-known/brand.json', { body: `{"pad":"${'x'.repeat(300_000)}"}` });
    assert.equal(await verifyWith(chain()), 'request_signature_brand_json_malformed');
    serve('acme.example/.well-known/brand.json', { body: '{"house":{"agents":[]},"house":{"agents":[]}}' });
    assert.equal(await verifyWith(chain()), 'request_signature_brand_json_malformed');
    serve('acme.example/.well-known/brand.json', { body: '<html>' });
    assert.equal(await verifyWith(chain()), 'request_signature_brand_json_malformed');
  });

  it('checks identity.key_origins.request_signing against the jwks_uri host', async () => {
    reset();
    const declared = (origin: string) =>
      capabilities({ brand_json_url: BRAND, key_origins: { request_signing: origin } });
    assert.equal(await verifyWith(chain({ caps: declared('https://keys.acme.example') })), `signed:${KID}`);
    assert.equal(
      await verifyWith(chain({ caps: declared('https://signing.acme.example') })),
      'request_signature_key_origin_mismatch',
    );
    const posture = capabilities(
      { brand_json_url: BRAND },
      { request_signing: { supported_for: ['create_media_buy'] } },
    );
    assert.equal(await verifyWith(chain({ caps: posture })), 'request_signature_key_origin_missing');
  });

  it('keeps a failure for at most negativeCacheMs, then sees the fixed brand.json', async () => {
    reset([]);
    let clock = 1_000_000;
    const source = chain({ now: () => clock, negativeCacheMs: 60_000 });
    assert.equal(await verifyWith(source), 'request_signature_agent_not_in_brand_json');
    reset();
    clock += 59_000;
    await assert.rejects(Promise.resolve(source.get(KID)), {
      name: 'KeyDiscoveryError',
      failure: 'agent_not_in_brand_json',
    });
    clock += 2_000;
    assert.deepEqual(await source.get(KID), jwk);
  });

  it('ties a keyid to one agent only: published by two configured agents, it is unknown', async () => {
    reset([
      { url: AGENT, jwks_uri: 'https://keys.acme.example/jwks.json' },
      { url: 'https://sell.acme.example/a2a', jwks_uri: 'https://keys.acme.example/jwks.json' },
    ]);
    const source = brandJsonKeys({
      agents: [
        { url: AGENT, brandJsonUrl: BRAND },
        { url: 'https://sell.acme.example/a2a', brandJsonUrl: BRAND },
      ],
      fetch: loopbackFetch,
    });
    assert.equal(await verifyWith(source), 'request_signature_key_unknown');
  });

  it('refuses a bad configuration at construction', () => {
    assert.throws(() => brandJsonKeys({ agents: [] }), TypeError);
    assert.throws(() => brandJsonKeys({ agents: ['http://buy.acme.example/mcp'] }), /https/);
    assert.throws(() => brandJsonKeys({ agents: [AGENT] }), /brandJsonUrl or the capabilities/);
  });
});

describe('the chain behind a running seller, and agentCapabilities', () => {
  let seller: ReferenceSeller;
  let docs: Server;
  let docsPort = 0;
  let brand = '';
  const mapped: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const target =
      url.host === 'buy.acme.example'
        ? `${new URL(seller.mcpUrl).origin}${url.pathname}${url.search}`
        : `http://127.0.0.1:${docsPort}/${url.host}${url.pathname}`;
    return fetch(target, init);
  };
  before(async () => {
    docs = createServer((req, res) => {
      if (req.url === '/acme.example/.well-known/brand.json') res.writeHead(200).end(brand);
      else if (req.url === '/keys.acme.example/jwks.json') res.writeHead(200).end(JSON.stringify({ keys: [jwk] }));
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => docs.listen(0, '127.0.0.1', resolve));
    docsPort = (docs.address() as AddressInfo).port;
    seller = await startReferenceSeller({
      requestSigning: {
        resolveKeys: brandJsonKeys({
          agents: [{ url: AGENT, brandJsonUrl: BRAND }],
          fetch: mapped,
          cacheMs: 0, // re-read brand.json on every call, so the test can change it
          negativeCacheMs: 0,
        }),
        requiredFor: ['create_media_buy'],
      },
    });
  });
  after(async () => {
    await seller.close();
    await new Promise<void>((resolve) => docs.close(() => resolve()));
  });

  const call = async () => {
    const client = new AdcpClient({
      url: seller.mcpUrl,
      protocol: 'mcp',
      signing: { keyid: KID, privateKey, alg: 'ed25519' },
      retry: false,
    });
    try {
      return await client.call('get_products', productsRequest());
    } catch (error) {
      return error;
    } finally {
      await client.close();
    }
  };

  it('accepts a buyer whose brand.json lists it, and refuses it with the chain code once it does not', async () => {
    brand = brandDoc([{ url: AGENT, jwks_uri: 'https://keys.acme.example/jwks.json' }]);
    const accepted = await call();
    assert.equal((accepted as { status?: string }).status, 'completed', String(accepted));
    brand = brandDoc([]);
    const refused = await call();
    assert.ok(refused instanceof AdcpWireError, String(refused));
    assert.equal(refused.status, 401);
    // The code itself, as a raw caller reads it (A2A 1.0, profile activated).
    const body = sendMessageBody('get_products', productsRequest(), 'm-1');
    const headers = signRequest(
      { method: 'POST', url: seller.a2aUrl, headers: { 'content-type': 'application/json' }, body },
      { keyid: KID, privateKey, alg: 'ed25519' },
    );
    const response = await fetch(seller.a2aUrl, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', ...ACTIVATED_HEADERS },
      body,
    });
    await response.body?.cancel();
    assert.equal(response.status, 401);
    assert.equal(
      response.headers.get('www-authenticate'),
      'Signature error="request_signature_agent_not_in_brand_json"',
    );
  });

  it('agentCapabilities reads get_adcp_capabilities as a protocol call over https', async () => {
    const answer = (await agentCapabilities(AGENT, { fetch: mapped, protocol: 'mcp' })) as { adcp?: unknown };
    assert.ok(answer.adcp !== undefined, JSON.stringify(answer));
    await assert.rejects(agentCapabilities('http://buy.acme.example/mcp'), /https/);
  });
});
