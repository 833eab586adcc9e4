import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/index.js';
import { startReferenceSeller } from '../../src/seller/start-reference-seller.js';
import type { ReferenceSeller } from '../../src/seller/start-reference-seller.js';

describe('AdcpClient against the reference seller', () => {
  let seller: ReferenceSeller;
  const clients: AdcpClient[] = [];
  const fastClock = { sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, Math.min(ms, 20))) };

  before(async () => {
    seller = await startReferenceSeller({
      timings: { workingAfterMs: 10, completeAfterMs: 40 },
      validateResponses: 'strict',
    });
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await seller.close();
  });

  const open = (protocol: 'mcp' | 'a2a', a2aWire?: '1.0' | '0.3') => {
    const client = new AdcpClient({
      url: protocol === 'mcp' ? seller.mcpUrl : seller.url,
      protocol,
      ...(a2aWire === undefined ? {} : { a2aWire }),
      clock: fastClock,
      timeoutMs: 20_000,
    });
    clients.push(client);
    return client;
  };

  const cases = [
    ['mcp', undefined],
    ['a2a', '1.0'],
    ['a2a', '0.3'],
  ] as const;

  for (const [protocol, wire] of cases) {
    const label = wire === undefined ? protocol : `${protocol} ${wire}`;

    it(`gets products ranked by the brief, context echoed (${label})`, async () => {
      const result = await open(protocol, wire).call(
        'get_products',
        { buying_mode: 'brief', brief: 'podcast audio' },
        { context: { ui: 'x' } },
      );
      assert.equal(result.status, 'completed');
      assert.deepEqual(result.context, { ui: 'x' });
      const products = (result.data?.products ?? []) as { product_id: string }[];
      assert.equal(products[0]?.product_id, 'audio_podcasts');
    });

    it(`follows a submitted media buy to completed by polling (${label})`, async () => {
      const client = open(protocol, wire);
      const submitted = await client.call('create_media_buy', {
        ...mediaBuyRequest([packageRequest('display_news', 10)]),
      });
      assert.equal(submitted.status, 'submitted');
      const final = await client.waitFor(submitted, { timeoutMs: 15_000, pollIntervalMs: 10 });
      assert.equal(final.status, 'completed');
      const data = final.data as { media_buy_id?: unknown; result?: { media_buy_id?: unknown } } | undefined;
      const mediaBuyId = data?.media_buy_id ?? data?.result?.media_buy_id;
      assert.ok(typeof mediaBuyId === 'string', 'the final result names its media buy');
      assert.match(mediaBuyId, /^mb_/);
      assert.doesNotMatch(final.message ?? '', /under review/, 'the final message is not the last progress message');
    });

    it(`retries a rate-limited call to success (${label})`, async () => {
      const result = await open(protocol, wire).call('get_products', {
        buying_mode: 'brief',
        brief: `ctv [rate-limit-once] ${label}`,
      });
      assert.equal(result.status, 'completed');
    });
  }

  it('runs an MCP Task-augmented call to the AdCP answer (2025 era: the caller asks for the task)', async () => {
    const legacy = new AdcpClient({
      url: seller.mcpUrl,
      protocol: 'mcp',
      mcpEra: 'legacy',
      clock: fastClock,
      timeoutMs: 20_000,
    });
    clients.push(legacy);
    const result = await legacy.call('get_products', { buying_mode: 'brief', brief: 'ctv' }, { task: { ttl: 60_000 } });
    assert.equal(result.status, 'completed');
    assert.equal(typeof result.transportTaskId, 'string');
  });

  it('answers the same call with { task } on the 2026 era directly: the seller decides, and a quick call is no task', async () => {
    const modern = new AdcpClient({ url: seller.mcpUrl, protocol: 'mcp', mcpEra: 'modern', clock: fastClock });
    clients.push(modern);
    const args = { buying_mode: 'brief', brief: 'ctv' } as const;
    const result = await modern.call('get_products', args, { task: { ttl: 60_000 } });
    assert.equal(result.status, 'completed');
    assert.equal(result.transportTaskId, undefined);
    const plain = await modern.call('get_products', args);
    assert.deepEqual(result.data?.products, plain.data?.products);
  });
});
