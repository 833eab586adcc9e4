import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { brandJsonKeys, KeyDiscoveryError } from '../../src/signing/brand-json-keys.js';

// Issue 36 item 7: `brandJsonKeys` fetched a `jwks_uri` the counterparty chose on special-use IP
// literals (https://10.0.0.1/jwks.json, https://169.254.169.254/...), and resolved host names
// with no check at all. Every fetch of the key-discovery chain now passes the webhook emitter's
// destination check (`checkOutboundUrl`) first, and the default fetch is its pinned fetch (names
// resolved per connection, special-use answers refused). No probe sends traffic anywhere: the
// brand.json is answered by an in-process fetch, and host names by an injected resolver.

const AGENT = 'https://buy.acme.example/mcp';
const BRAND = 'https://acme.example/.well-known/brand.json';
const brandJson = (jwksUri: string) =>
  JSON.stringify({
    version: '1.0',
    house: { domain: 'acme.example', name: 'Acme', agents: [{ url: AGENT, jwks_uri: jwksUri }] },
  });

/** A fetch that answers the brand.json in-process and records every URL asked for. */
function brandOnlyFetch(jwksUri: string) {
  const asked: string[] = [];
  const fetcher: typeof fetch = async (input) => {
    const url = String(input instanceof Request ? input.url : input);
    asked.push(url);
    if (url === BRAND) return new Response(brandJson(jwksUri), { headers: { 'content-type': 'application/json' } });
    return new Response('{"keys":[]}', { headers: { 'content-type': 'application/json' } });
  };
  return { fetcher, asked };
}

const refusedAs = (failure: string) => (error: unknown) => {
  assert.ok(error instanceof KeyDiscoveryError, String(error));
  assert.equal(error.failure, failure, error.message);
  return true;
};

describe('brandJsonKeys, facing a brand.json whose jwks_uri points inside', () => {
  for (const jwksUri of [
    'https://10.0.0.1/jwks.json',
    'https://169.254.169.254/latest/meta-data/jwks.json',
    'https://[fd00::1]/jwks.json',
    'https://[::ffff:127.0.0.1]/jwks.json',
    'https://127.0.0.1/jwks.json',
    'https://localhost/jwks.json',
    'https://100.64.0.1/jwks.json',
  ]) {
    it(`refuses ${jwksUri} without fetching it`, async () => {
      const { fetcher, asked } = brandOnlyFetch(jwksUri);
      const keys = brandJsonKeys({ agents: [{ url: AGENT, brandJsonUrl: BRAND }], fetch: fetcher });
      await assert.rejects(async () => keys.get('any-kid'), refusedAs('brand_json_malformed'));
      assert.deepEqual(asked, [BRAND]);
    });
  }
});

describe('brandJsonKeys with its default fetch, facing host names that resolve inside', () => {
  it('refuses a brand.json host that resolves to a special-use address, before connecting', async () => {
    const resolved: string[] = [];
    const keys = brandJsonKeys({
      agents: [{ url: AGENT, brandJsonUrl: BRAND }],
      resolveHost: async (hostname) => {
        resolved.push(hostname);
        return [{ address: '169.254.169.254', family: 4 }];
      },
    });
    await assert.rejects(
      async () => keys.get('any-kid'),
      (error: unknown) => {
        refusedAs('brand_json_unreachable')(error);
        assert.match((error as Error).message, /special-use/);
        return true;
      },
    );
    assert.deepEqual(resolved, ['acme.example']);
  });

  it('refuses a brand.json URL on a special-use IP literal without resolving or fetching', async () => {
    const resolved: string[] = [];
    const keys = brandJsonKeys({
      agents: [{ url: AGENT, brandJsonUrl: 'https://10.0.0.1/.well-known/brand.json' }],
      resolveHost: async (hostname) => {
        resolved.push(hostname);
        return [{ address: '93.184.216.34', family: 4 }];
      },
    });
    await assert.rejects(async () => keys.get('any-kid'), refusedAs('brand_json_unreachable'));
    assert.deepEqual(resolved, []);
  });
});
