/**
 * A small media-buy seller built with `@adcp/sdk`'s seller framework (`createAdcpServerFromPlatform`),
 * served over MCP (`/mcp`, stateless Streamable HTTP, as the SDK's own `serve()` does) and A2A
 * (`createA2AAdapter`, JSON-RPC at `/a2a`), on 127.0.0.1 only. `create_media_buy` hands off to a
 * background task (`submitted` + `task_id`) that completes after `approvalMs`; `sync_creatives`
 * approves every creative at once; the framework offers
 * `tasks_get` to follow it. `rateLimit(n)` makes the next `n` `get_media_buy_delivery` calls answer
 * `RATE_LIMITED` (the framework's `RateLimitedError`, `retry_after` 1 s); `holdNext()` keeps the
 * next `get_media_buys` call running until released (so its A2A task can be cancelled).
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import express from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  createA2AAdapter,
  createAdcpServerFromPlatform,
  createInMemoryTaskRegistry,
  InMemoryStateStore,
  createIdempotencyStore,
  memoryBackend,
  DEFAULT_REPORTING_CAPABILITIES,
  RateLimitedError,
  type AccountStore,
  type DecisioningPlatform,
  type SalesCorePlatform,
  type SalesIngestionPlatform,
  type WebhooksConfig,
} from '@adcp/sdk/server';
import type { CreateMediaBuySuccess, GetProductsResponse } from '@adcp/sdk/types';

export interface FrameworkSeller {
  /** The MCP endpoint. */
  mcpUrl: string;
  /** The A2A JSON-RPC endpoint; its card is at `/a2a/.well-known/agent-card.json` and at the origin root. */
  a2aUrl: string;
  /** Media buys created so far (ids), to check a buy happened once. */
  mediaBuyIds(): string[];
  /** Creatives synced so far (ids). */
  creativeIds(): string[];
  /** The next `count` `get_media_buy_delivery` calls answer RATE_LIMITED with `retry_after` (1 s). */
  rateLimit(count: number, retryAfterSeconds?: number): void;
  /** `get_media_buy_delivery` calls received so far. */
  deliveryCalls(): number;
  /**
   * With `webhooks: true`: the public half of the seller's RFC 9421 webhook signing key, also served
   * at `/.well-known/jwks.json` (what a buyer verifies deliveries against).
   */
  jwks?: { keys: Record<string, unknown>[] };
  /** With `webhooks: true`: that JWKS's URL. */
  jwksUrl?: string;
  /** The next `get_media_buys` call runs until `release()` (at most 30 s); resolves when it has started. */
  holdNext(): { started: Promise<void>; release(): void };
  close(): Promise<void>;
}

type Product = GetProductsResponse['products'][number];

function product(id: string, name: string, cpm: number): Product {
  return {
    product_id: id,
    name,
    description: `${name}, non-guaranteed`,
    delivery_type: 'non_guaranteed',
    format_ids: [{ id: 'video_30s', agent_url: 'https://creative.adcontextprotocol.org' }],
    publisher_properties: [{ publisher_domain: 'publisher.example', selection_type: 'all' }],
    pricing_options: [{ pricing_option_id: `${id}-cpm`, pricing_model: 'cpm', fixed_price: cpm, currency: 'USD' }],
    reporting_capabilities: { ...DEFAULT_REPORTING_CAPABILITIES },
  };
}

const PRODUCTS: Product[] = [
  product('olv_pets', 'Online video: pets', 12),
  product('ctv_sports', 'CTV: live sports', 30),
];

class SmallSeller implements DecisioningPlatform<Record<string, never>, Record<string, unknown>> {
  readonly buys: string[] = [];
  readonly creatives: string[] = [];
  limited: { count: number; retryAfter: number } = { count: 0, retryAfter: 1 };
  deliveryCalls = 0;
  hold: { started: () => void; released: Promise<void> } | undefined;
  constructor(private readonly approvalMs: number) {}

  capabilities = {
    specialisms: ['sales-non-guaranteed'] as const,
    creative_agents: [{ agent_url: 'https://creative.adcontextprotocol.org' }],
    channels: ['olv', 'ctv'] as const,
    pricingModels: ['cpm'] as const,
    config: {},
  };
  statusMappers = {};
  accounts: AccountStore<Record<string, unknown>> = {
    resolution: 'explicit',
    resolve: async (ref) => {
      const id = ref !== undefined && 'account_id' in ref ? ref.account_id : 'acc_acmeoutdoor';
      return {
        id,
        name: 'Acme Outdoor',
        status: 'active',
        operator: 'pinnacle-agency.example',
        ctx_metadata: {},
        authInfo: { kind: 'api_key' },
      };
    },
  };
  sales: SalesCorePlatform<Record<string, unknown>> &
    Pick<SalesIngestionPlatform<Record<string, unknown>>, 'syncCreatives'> = {
    getProducts: async () => ({ products: PRODUCTS }),
    createMediaBuy: (_req, ctx) =>
      Promise.resolve(
        ctx.handoffToTask(async () => {
          await new Promise((resolve) => setTimeout(resolve, this.approvalMs));
          const id = `mb_${this.buys.length + 1}`;
          this.buys.push(id);
          const buy: CreateMediaBuySuccess = {
            media_buy_id: id,
            status: 'active',
            confirmed_at: new Date().toISOString(),
            packages: [],
          };
          return buy;
        }),
      ),
    updateMediaBuy: async (id) => ({ media_buy_id: id, status: 'active' }),
    syncCreatives: async (creatives) => {
      this.creatives.push(...creatives.map((c) => c.creative_id));
      return creatives.map((c) => ({
        creative_id: c.creative_id,
        action: 'created' as const,
        status: 'approved' as const,
      }));
    },
    getMediaBuyDelivery: async (req) => {
      this.deliveryCalls++;
      if (this.limited.count > 0) {
        this.limited.count--;
        throw new RateLimitedError(this.limited.retryAfter);
      }
      return {
        currency: 'USD',
        reporting_period: {
          start: req.start_date ?? '2026-01-01T00:00:00Z',
          end: req.end_date ?? '2026-01-31T23:59:59Z',
        },
        media_buy_deliveries: [],
      };
    },
    getMediaBuys: async () => {
      const hold = this.hold;
      this.hold = undefined;
      if (hold !== undefined) {
        hold.started();
        await hold.released;
      }
      return { media_buys: [] };
    },
  };
}

/**
 * Starts the seller on 127.0.0.1, port 0. `webhooks: true` turns on the framework's own webhook
 * emitter (RFC 9421, a fresh Ed25519 key whose public half is served at `/.well-known/jwks.json`)
 * and lets `push_notification_config.url` name a loopback http receiver, as a sandbox seller does
 * (`allowPrivateWebhookUrls`, and `ADCP_DECISIONING_ALLOW_HTTP_WEBHOOKS=1` for http).
 */
export async function startFrameworkSeller(
  options: { approvalMs?: number; webhooks?: boolean } = {},
): Promise<FrameworkSeller> {
  const platform = new SmallSeller(options.approvalMs ?? 300);
  const releases: (() => void)[] = [];
  let signer: { keyid: string; alg: 'ed25519'; privateKey: Record<string, unknown> } | undefined;
  let jwks: { keys: Record<string, unknown>[] } | undefined;
  if (options.webhooks === true) {
    process.env['ADCP_DECISIONING_ALLOW_HTTP_WEBHOOKS'] = '1';
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const keyid = `framework-webhooks-${randomUUID().slice(0, 8)}`;
    const meta = { kid: keyid, alg: 'EdDSA', use: 'sig', key_ops: ['verify'], adcp_use: 'webhook-signing' };
    jwks = { keys: [{ ...publicKey.export({ format: 'jwk' }), ...meta }] };
    signer = {
      keyid,
      alg: 'ed25519',
      privateKey: { ...privateKey.export({ format: 'jwk' }), kid: keyid, alg: 'EdDSA', adcp_use: 'webhook-signing' },
    };
  }
  const adcp = createAdcpServerFromPlatform(platform, {
    ...(signer !== undefined
      ? {
          webhooks: {
            signerKey: signer as NonNullable<WebhooksConfig['signerKey']>,
            retries: { maxAttempts: 2, initialDelayMs: 200 },
          },
          allowPrivateWebhookUrls: true,
        }
      : {}),
    name: 'framework-seller',
    version: '0.0.1',
    validation: { requests: 'strict', responses: 'strict' },
    taskRegistry: createInMemoryTaskRegistry(),
    stateStore: new InMemoryStateStore(),
    idempotency: createIdempotencyStore({ backend: memoryBackend() }),
    // One anonymous test buyer: its idempotency keys share one namespace.
    resolveIdempotencyPrincipal: () => 'test-buyer',
  });
  const app = express();
  if (jwks !== undefined) {
    const published = jwks;
    app.get('/.well-known/jwks.json', (_req, res) => {
      res.json(published);
    });
  }
  // Stateless MCP over one AdcpServer (building one per request, as `serve()` does by default,
  // costs seconds per call here): connect, handle, close, one POST at a time, as
  // `serve({ reuseAgent: true })` does. No standalone SSE stream: GET and DELETE get 405, as in
  // the MCP SDK's stateless example (a held GET would block the queue).
  let queue: Promise<void> = Promise.resolve();
  app.all('/mcp', (req, res) => {
    if (req.method !== 'POST') {
      res
        .status(405)
        .set('allow', 'POST')
        .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
      return;
    }
    const cycle = async (): Promise<void> => {
      const transport = new StreamableHTTPServerTransport({}); // no session id generator: stateless;
      try {
        // Structurally the transport the framework expects; its optional handlers trip exactOptionalPropertyTypes.
        await adcp.connect(transport as Parameters<typeof adcp.connect>[0]);
        await transport.handleRequest(req, res);
      } catch {
        if (!res.headersSent) res.status(500).json({ error: 'Internal server error' });
      } finally {
        await adcp.close();
      }
    };
    queue = queue.then(cycle, cycle);
  });
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const a2a = createA2AAdapter({
    server: adcp,
    agentCard: {
      name: 'framework-seller',
      description: 'A small non-guaranteed seller built with the @adcp/sdk framework',
      url: `${origin}/a2a`,
      version: '0.0.1',
      provider: { organization: 'adcp-wire tests', url: 'https://example.com' },
    },
  });
  const a2aRoutes = express.Router();
  a2aRoutes.use(express.json());
  a2a.mount(a2aRoutes);
  app.use(a2aRoutes);
  return {
    mcpUrl: `${origin}/mcp`,
    a2aUrl: `${origin}/a2a`,
    ...(jwks !== undefined ? { jwks, jwksUrl: `${origin}/.well-known/jwks.json` } : {}),
    mediaBuyIds: () => [...platform.buys],
    creativeIds: () => [...platform.creatives],
    rateLimit: (count, retryAfterSeconds = 1) => {
      platform.limited = { count, retryAfter: retryAfterSeconds };
    },
    deliveryCalls: () => platform.deliveryCalls,
    holdNext: () => {
      let started: () => void = () => undefined;
      let release: () => void = () => undefined;
      const startedPromise = new Promise<void>((resolve) => {
        started = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
        setTimeout(resolve, 30_000).unref();
      });
      platform.hold = { started, released };
      releases.push(release);
      return { started: startedPromise, release };
    },
    close: async () => {
      for (const release of releases) release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue;
    },
  };
}
