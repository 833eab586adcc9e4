// Issue 36, item 4: schema validation ran before auth and was quadratic in wrong-typed array items
// (24,000 numbers in filters.channels blocked the event loop 15 s) and in distinct objects under
// uniqueItems. A 1 MiB hostile body must now cost no more than a valid body of the same size, on
// the seller as on a buyer that validates answers. The bound is generous: 1.5 s, or three times a
// valid 1 MiB call measured just before on the same wire when the machine is that loaded (the old
// code took 30 s to minutes); the figures are in the commit body.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/adcp-client.js';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { mediaBuyRequest } from '../../src/seller/sample-requests.js';
import { startReferenceSeller } from '../../src/seller/start-reference-seller.js';
import type { ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { ACTIVATED_HEADERS } from '../server/profile-activation.js';
import { mcpPost, openMcpSession, rawPost, rpcMessage } from './raw-http.js';
import type { Json, RawAnswer } from './raw-http.js';

const MIB = 1024 * 1024;
const BOUND_MS = 1_500;

/** As many small numbers as fit in about `bytes` of JSON. */
function numbers(bytes: number): number[] {
  return Array.from({ length: Math.floor(bytes / 7) - 2_000 }, (_, i) => 100_000 + i);
}

const mcpCall = (tool: string, args: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: tool, arguments: args } });
const a2aSend = (tool: string, args: unknown) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 4,
    method: 'SendMessage',
    params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ data: { skill: tool, input: args } }] } },
  });

/** The first `adcp_error` (or `adcpError`) object anywhere in a value. */
function findAdcpError(value: unknown): Json | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const object = value as Json;
  for (const key of ['adcp_error', 'adcpError']) {
    if (typeof object[key] === 'object' && object[key] !== null) return object[key] as Json;
  }
  for (const inner of Object.values(object)) {
    const found = findAdcpError(inner);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The AdCP error of an answer on either wire. */
function adcpErrorOf(answer: RawAnswer): Json {
  const message = rpcMessage(answer);
  const found = findAdcpError(message);
  assert.ok(found, `no AdCP error in ${JSON.stringify(message).slice(0, 300)}`);
  return found;
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

/** A valid get_products of about 1 MiB (the numbers sit in the free-form `context`). */
const benignArgs = () => ({ buying_mode: 'brief', brief: 'x', context: { pad: numbers(MIB) } });

/** Asserts `ms` is within the bound: 1.5 s, or three valid 1 MiB calls on a loaded machine. */
function assertCheap(ms: number, benignMs: number, what: string): void {
  const bound = Math.max(BOUND_MS, 3 * benignMs);
  assert.ok(
    ms < bound,
    `${what} took ${ms.toFixed(0)} ms (bound ${bound.toFixed(0)} ms, valid 1 MiB ${benignMs.toFixed(0)} ms)`,
  );
}

describe('seller schema validation of hostile bodies (anonymous, before any handler)', () => {
  let seller: ReferenceSeller;
  let session: string;
  const mcp = (body: string) => mcpPost(seller.mcpUrl, session, body);
  const a2a = (body: string) => rawPost(seller.a2aUrl, { body, headers: ACTIVATED_HEADERS });
  /** A valid 1 MiB call on the wire, timed. */
  const benign = async (send: (body: string) => Promise<RawAnswer>, body: string): Promise<number> => {
    const { value, ms } = await timed(() => send(body));
    assert.equal(findAdcpError(rpcMessage(value)), undefined);
    return ms;
  };
  before(async () => {
    seller = await startReferenceSeller({ sendWebhook: async () => undefined });
    session = await openMcpSession(seller.mcpUrl);
    // Compile the validators first: the bound is about validation, not the first compile.
    for (const tool of ['get_products', 'create_media_buy', 'get_media_buys', 'sync_creatives']) {
      await mcp(mcpCall(tool, {}));
    }
  });
  after(() => seller.close());

  const hostile: [string, string, unknown][] = [
    ['get_products', '/filters/channels/0', { buying_mode: 'brief', brief: 'x', filters: { channels: numbers(MIB) } }],
    [
      'create_media_buy',
      '/packages/0',
      mediaBuyRequest([], { idempotency_key: 'k'.repeat(20), packages: numbers(MIB) }),
    ],
    ['get_media_buys', '/media_buy_ids/0', { media_buy_ids: numbers(MIB) }],
  ];

  for (const [tool, pointer, args] of hostile) {
    it(`answers a 1 MiB ${tool} of wrong-typed array items over MCP in under ${BOUND_MS} ms`, async () => {
      const body = mcpCall(tool, args);
      assert.ok(body.length > 0.9 * MIB && body.length < MIB, String(body.length));
      const benignMs = await benign(mcp, mcpCall('get_products', benignArgs()));
      const { value, ms } = await timed(() => mcp(body));
      const error = adcpErrorOf(value);
      assert.equal(error.code, 'INVALID_REQUEST');
      assert.ok(String(error.message).includes(pointer), String(error.message));
      assertCheap(ms, benignMs, tool);
    });
  }

  it(`answers the same over A2A in under ${BOUND_MS} ms`, async () => {
    const [tool, pointer, args] = hostile[0]!;
    const benignMs = await benign(a2a, a2aSend('get_products', benignArgs()));
    const { value, ms } = await timed(() => a2a(a2aSend(tool, args)));
    const error = adcpErrorOf(value);
    assert.equal(error.code, 'INVALID_REQUEST');
    assert.ok(String(error.message).includes(pointer), String(error.message));
    assertCheap(ms, benignMs, tool);
  });

  it(`checks uniqueItems over 1 MiB of distinct objects in under ${BOUND_MS} ms`, async () => {
    const ids = Array.from({ length: Math.floor(MIB / 35) }, (_, i) => ({ type: 'ad_id', value: `v${i}` }));
    const args = {
      idempotency_key: 'u'.repeat(20),
      account: { account_id: 'acct' },
      creatives: [
        {
          creative_id: 'c',
          name: 'n',
          format_id: { agent_url: 'https://x.example', id: 'f' },
          assets: 7, // wrong, so the call ends at validation whatever the seller would do with it
          industry_identifiers: ids,
        },
      ],
    };
    const body = mcpCall('sync_creatives', args);
    assert.ok(body.length > 0.9 * MIB && body.length < MIB, String(body.length));
    const benignMs = await benign(mcp, mcpCall('get_products', benignArgs()));
    const { value, ms } = await timed(() => mcp(body));
    assert.equal(adcpErrorOf(value).code, 'INVALID_REQUEST');
    assertCheap(ms, benignMs, 'sync_creatives');
  });
});

describe("buyer's opt-in response validation of a hostile answer", () => {
  const server = createAdcpServer({
    tools: [
      {
        name: 'get_products',
        description: 'answers 1 MiB of numbers where products belong',
        handler: async () => ({ products: numbers(MIB), cache_scope: 'public' }),
      },
    ],
  });
  let listening: ListeningAdcpServer;
  before(async () => {
    listening = await server.listen();
  });
  after(() => server.close());

  it(`checks a 1 MiB answer of wrong-typed items in under ${BOUND_MS} ms`, async () => {
    const client = new AdcpClient({ url: listening.mcpUrl, protocol: 'mcp', validate: 'response' });
    try {
      await client.call('get_products', { buying_mode: 'brief', brief: 'warm up' }); // compiles the validator
      const off = new AdcpClient({ url: listening.mcpUrl, protocol: 'mcp', validate: 'off' });
      let benignMs: number;
      try {
        benignMs = (await timed(() => off.call('get_products', { buying_mode: 'brief', brief: 'x' }))).ms;
      } finally {
        await off.close();
      }
      const { value, ms } = await timed(() => client.call('get_products', { buying_mode: 'brief', brief: 'x' }));
      const validation = (value as { validation?: { ok: boolean; issues?: { pointer: string }[] } }).validation;
      assert.equal(validation?.ok, false, JSON.stringify(validation).slice(0, 300));
      assert.equal(validation?.issues?.[0]?.pointer, '/products/0');
      assertCheap(ms, benignMs, 'the answer'); // the same answer unvalidated is the baseline
    } finally {
      await client.close();
    }
  });
});
