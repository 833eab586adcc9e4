import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { JsonObject } from '../core/types.js';
import type { WebhookSigningKey } from '../webhooks/index.js';
import { isLoopbackAddress, publicOriginOf } from '../server/http/http-guard.js';
import { ADCP_SERVER_PATHS } from '../server/http/server-paths.js';
import { createAdcpServer } from '../server/create-adcp-server.js';
import type { ListeningAdcpServer } from '../server/create-adcp-server.js';
import type { ResponseValidation } from '../server/tools/adcp-serving.js';
import type { WebhookSend } from '../server/types.js';
import type { ActivityListener } from '../telemetry/activity.js';
import type { RequestSigningServerOptions } from '../server/auth/request-signing.js';
import type { AdcpAuthOptions } from '../server/auth/auth-options.js';
import { createRequestAuth } from '../server/auth/request-auth.js';
import type { IdempotencyStore } from '../store/idempotency-store.js';
import { MemoryReplayStore } from '../signing/replay-store.js';
import { SqliteIdempotencyStore } from '../store/sqlite-idempotency-store.js';
import { SqliteTaskStore } from '../store/sqlite-task-store.js';
import type { TaskStore } from '../store/task-store.js';
import type { TaskPolicy } from '../store/task-policy.js';
import { createFaultInjector } from './fault-injection.js';
import { APPROVAL_MODES, sellerKit, sellerScenarios, type ApprovalMode, type SellerTimings } from './seller-kit.js';
import { openSellerDb, type SellerDb } from './seller-db.js';
import { memorySellerDb } from './memory-seller-db.js';
import { MemoryTaskStore } from '../store/memory-task-store.js';
import { MemoryIdempotencyStore } from '../store/memory-idempotency-store.js';
import { sellerTools } from './seller-tools.js';

export interface ReferenceSellerOptions {
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1 (then only loopback Host/Origin are accepted). */
  host?: string;
  /** The origin the cards advertise (`https://seller.example`); default the listen address. */
  publicUrl?: string;
  /** SQLite file for tasks, media buys and creatives. Default: in memory (state dies with the process). */
  dbPath?: string;
  /**
   * Shared state instead of the SQLite file: a `postgres://` URL. Tasks, idempotency keys, the
   * request-signing replay cache, media buys, creatives and sandbox fixtures then live in
   * PostgreSQL, so several seller processes behind any load balancer serve as one (`dbPath` is
   * not used).
   */
  storeUrl?: string;
  /** With a `postgres://` `storeUrl`: the most connections this process holds (default 10). */
  storeConnections?: number;
  /** How fast a media buy in review moves `submitted` -> `working` -> `completed`. */
  timings?: Partial<SellerTimings>;
  /**
   * How new media buys are approved (seller-kit.ts, `ApprovalMode`): `review` (default: catalog
   * buys are submitted and confirmed after `timings`), `auto` (confirmed at once, except guaranteed
   * buys with a webhook: what the compliance storyboards expect) or `manual` (submitted until
   * approved through comply_test_controller).
   */
  approval?: ApprovalMode;
  /**
   * Principals onboarded passthrough-only: `sync_accounts` with `billing: agent` answers
   * BILLING_NOT_PERMITTED_FOR_AGENT suggesting `operator`. Default: none (agent billing is open to
   * every identified caller).
   */
  passthroughPrincipals?: readonly string[];
  /** At most this many tool calls per principal in any 60 s; then RATE_LIMITED with retry_after. Default: none. */
  callsPerMinute?: number;
  /** Replaces webhook delivery (tests); default: the library's emitter. */
  sendWebhook?: WebhookSend;
  /** RFC 9421 webhook signing key; default: a fresh Ed25519 key (its public JWK is on the result). */
  signingKey?: WebhookSigningKey;
  /**
   * Accept http:// and every webhook address, private and metadata ones included (tests only).
   * Default false. Without it, a seller listening on loopback with no `publicUrl`, or a loopback
   * one, accepts loopback receivers (local demos) and nothing else that the SSRF rules refuse.
   */
  allowInsecureWebhookUrls?: boolean;
  /** Task store limits (TTL clamp, poll interval, per-owner creation rate limit). */
  taskPolicy?: Partial<TaskPolicy>;
  /** Maps a request to its principal (`null` refuses it). Default: `anonymous@<address>`, per caller address. */
  authenticate?: (req: IncomingMessage) => string | null | Promise<string | null>;
  /** Verify RFC 9421 request signatures (see `createAdcpServer`'s `requestSigning`). */
  requestSigning?: RequestSigningServerOptions;
  /**
   * Bearer tokens / OAuth (see `createAdcpServer`'s `auth`): discovery stays open, every other
   * operation needs credentials. Default: open (every caller is `anonymous@<address>`).
   */
  auth?: AdcpAuthOptions;
  name?: string;
  /** Releases served and advertised. Default `['3.0', '3.1']`. */
  adcpVersions?: string[];
  /**
   * Check every answer against the response schema of the release served (the project's tests use
   * `strict`). Default `off`: the first check of a tool compiles its schemas (hundreds of ms).
   */
  validateResponses?: ResponseValidation;
  /**
   * Serve `comply_test_controller` (seed products, creatives and media buys; force media buy and
   * creative statuses; simulate delivery and spend). A sandbox deployment only. `isLive` names the
   * principals whose accounts are live: they get FORBIDDEN (comply-controller-mode-gate).
   */
  testController?: boolean | { isLive?: (principal: string) => boolean };
  /** Publish `outputSchema` in MCP `tools/list` (see `createAdcpServer`'s `outputSchemas`). Default false. */
  outputSchemas?: boolean;
  /** One plain event per request, answer and webhook (see `createAdcpServer`'s `onActivity`; `adcp serve --verbose`). */
  onActivity?: ActivityListener;
}

/**
 * Starts the reference seller (MCP at `/mcp`, A2A at `/a2a`, cards under `/.well-known/`):
 * a deterministic catalog, async media buys with webhooks, creatives, delivery, task polling,
 * and failures on demand (`x-adcp-fail` header, or `[rate-limit-once]`, `[rate-limit]`, `[fail]`
 * in a brief; `[reject]` in a `po_number` fails the media buy in review).
 */
export interface ReferenceSeller extends ListeningAdcpServer {
  /** The public half of the webhook signing key (`{ keys: [jwk] }`), also at `/.well-known/jwks.json`. */
  webhookJwks: JsonObject;
  /**
   * Where its brand.json is declared (`identity.brand_json_url`): under an https `publicUrl` only,
   * with the seller's own signing key; the document is served at `/.well-known/brand.json`.
   */
  brandJsonUrl?: string;
}

/** A fresh Ed25519 webhook signing key and its public JWK set. */
function ephemeralSigningKey(): { key: WebhookSigningKey; jwks: JsonObject } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const keyid = `seller-${randomUUID().slice(0, 8)}`;
  const jwk = {
    ...publicKey.export({ format: 'jwk' }),
    kid: keyid,
    alg: 'EdDSA',
    use: 'sig',
    key_ops: ['verify'],
    adcp_use: 'request-signing',
  };
  return { key: { keyid, alg: 'ed25519', privateKey }, jwks: { keys: [jwk] } };
}

/**
 * The seller's brand.json (3.1 `brand.json`, the Brand Agent form) and the `identity` block that
 * points to it, when the seller has an https public origin to name (both documents' URLs must be
 * https): one `sales` agent entry per endpoint (MCP, A2A), each naming the JWKS the webhook
 * signing key is published in. Without an https origin there is no brand.json (decision 0215).
 */
export function sellerBrandJson(
  publicUrl: string | undefined,
  now: () => number = Date.now,
): { brandJson: JsonObject; identity: JsonObject } | undefined {
  if (publicUrl === undefined) return undefined;
  const origin = publicOriginOf(publicUrl);
  if (!origin.startsWith('https://')) return undefined;
  const jwksUri = `${origin}${ADCP_SERVER_PATHS.jwks}`;
  const agent = (endpoint: 'mcp' | 'a2a') => ({
    type: 'sales',
    url: `${origin}${ADCP_SERVER_PATHS[endpoint]}`,
    id: `reference_seller_${endpoint}`,
    description: `The adcp-wire reference seller over ${endpoint === 'mcp' ? 'MCP' : 'A2A'}.`,
    jwks_uri: jwksUri,
  });
  return {
    brandJson: { version: '1.0', agents: [agent('mcp'), agent('a2a')], last_updated: new Date(now()).toISOString() },
    identity: { brand_json_url: `${origin}${ADCP_SERVER_PATHS.brandJson}` },
  };
}

/**
 * Test hook, only with ADCP_SELLER_TEST_HOOKS=1 in the environment: a request carrying
 * `x-adcp-fail: HOLD_AFTER_EFFECT` is held (its answer never sent, so never stored) until the
 * request times out, for a test to kill the process between the side effect and the stored answer.
 */
async function holdAfterEffect(_tool: string, headers: IncomingMessage['headers']): Promise<void> {
  if (headers['x-adcp-fail'] !== 'HOLD_AFTER_EFFECT') return;
  await new Promise<never>(() => undefined);
}

/**
 * Test hook, only with ADCP_SELLER_TEST_HOOKS=1 in the environment: a get_products whose brief
 * holds `[hold-until-aborted]` waits until its AbortSignal fires (a cancel, a timeout, shutdown),
 * then says so on stderr (`adcp test hook: get_products aborted (cancelled)`) for a test to see which
 * instance's work was stopped.
 */
async function holdUntilAborted(tool: string, args: JsonObject, signal: AbortSignal): Promise<void> {
  if (typeof args.brief !== 'string' || !args.brief.includes('[hold-until-aborted]')) return;
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  const why = signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
  process.stderr.write(`adcp test hook: ${tool} aborted (${why})\n`);
  throw signal.reason;
}

export async function startReferenceSeller(options: ReferenceSellerOptions = {}): Promise<ReferenceSeller> {
  const path = options.dbPath ?? ':memory:';
  const timings: SellerTimings = { workingAfterMs: 500, completeAfterMs: 2000, ...options.timings };
  if (timings.completeAfterMs < timings.workingAfterMs) {
    throw new RangeError('startReferenceSeller: timings.completeAfterMs must be at least workingAfterMs');
  }
  // The configuration is checked before any store opens, so a bad one leaves nothing open.
  if (options.auth !== undefined && options.authenticate !== undefined) {
    throw new TypeError('startReferenceSeller: pass auth or authenticate, not both');
  }
  if (options.auth !== undefined) createRequestAuth(options.auth, '3.1');
  if (options.approval !== undefined && !APPROVAL_MODES.includes(options.approval)) {
    throw new RangeError(`startReferenceSeller: approval is ${APPROVAL_MODES.join(', ')}`);
  }
  const perMinute = options.callsPerMinute;
  if (perMinute !== undefined && !(Number.isInteger(perMinute) && perMinute >= 1)) {
    throw new RangeError('startReferenceSeller: callsPerMinute must be a whole number of at least 1');
  }
  const connections = options.storeConnections;
  if (connections !== undefined && !(Number.isInteger(connections) && connections >= 1)) {
    throw new RangeError('startReferenceSeller: storeConnections must be a whole number of at least 1');
  }
  const policy = { pollIntervalMs: 500, ...options.taskPolicy };
  let store: TaskStore;
  let idempotency: IdempotencyStore;
  let closeStore: () => Promise<void>;
  let db: SellerDb;
  let requestSigning = options.requestSigning;
  if (options.storeUrl !== undefined) {
    const { openStoresFromUrl } = await import('../store/pg-open-stores.js');
    const opened = await openStoresFromUrl({
      url: options.storeUrl,
      env: {},
      taskPolicy: policy,
      ...(options.storeConnections === undefined ? {} : { pg: { maxConnections: options.storeConnections } }),
    });
    store = opened.tasks;
    idempotency = opened.idempotency;
    closeStore = () => opened.close();
    if (opened.database !== undefined) {
      const { openPgSellerDb } = await import('./pg-seller-db.js');
      db = openPgSellerDb(opened.database);
    } else db = openSellerDb(path);
    // One replay window for the fleet: a signature seen by one instance is a replay at every
    // other. A per-process cache (the default, or the sandbox's) becomes the shared one, same cap.
    const given = requestSigning?.replay;
    if (requestSigning !== undefined && (given === undefined || given instanceof MemoryReplayStore)) {
      if (opened.database !== undefined) {
        const { PgReplayStore } = await import('../store/pg-replay-store.js');
        const perKeyidCap = given?.perKeyidCap ?? 1_000_000;
        requestSigning = { ...requestSigning, replay: new PgReplayStore({ database: opened.database, perKeyidCap }) };
      } else if (given === undefined && opened.replay !== undefined) {
        requestSigning = { ...requestSigning, replay: opened.replay };
      }
    }
  } else if (path === ':memory:') {
    // In memory: no SQLite driver needed (decision 0167); a fresh, empty seller per process either way.
    const tasks = new MemoryTaskStore({ policy });
    const keys = new MemoryIdempotencyStore();
    store = tasks;
    idempotency = keys;
    closeStore = async () => {
      await tasks.close();
      await keys.close();
    };
    db = memorySellerDb();
  } else {
    const tasks = new SqliteTaskStore({ path, policy });
    const keys = new SqliteIdempotencyStore({ path });
    store = tasks;
    idempotency = keys;
    closeStore = async () => {
      await tasks.close();
      await keys.close();
    };
    try {
      db = openSellerDb(path);
    } catch (error) {
      await closeStore();
      throw error;
    }
  }
  const controller =
    options.testController === undefined || options.testController === false
      ? undefined
      : options.testController === true
        ? {}
        : options.testController;
  const adcpVersions = options.adcpVersions ?? ['3.0', '3.1'];
  const host = options.host ?? '127.0.0.1';
  const generated = options.signingKey === undefined ? ephemeralSigningKey() : undefined;
  const signingKey = options.signingKey ?? generated?.key;
  const webhookJwks: JsonObject = generated?.jwks ?? { keys: [] };
  let server: ReturnType<typeof createAdcpServer>;
  let brandJsonUrl: string | undefined;
  try {
    // The keys are named in brand.json only when this seller publishes them (its own generated
    // key); a bad publicUrl throws here, with the stores closed below.
    const brand = generated === undefined ? undefined : sellerBrandJson(options.publicUrl);
    brandJsonUrl = brand?.identity.brand_json_url as string | undefined;
    const kit = sellerKit(db, Date.now, {
      approval: options.approval ?? 'review',
      timings,
      ...(options.passthroughPrincipals === undefined
        ? {}
        : { passthroughPrincipals: new Set(options.passthroughPrincipals) }),
    });
    const fault = createFaultInjector(
      options.callsPerMinute === undefined ? {} : { callsPerMinute: options.callsPerMinute },
    );
    server = createAdcpServer({
      name: options.name ?? 'adcp-wire reference seller',
      description: 'A deterministic AdCP media-buy seller for demos and tests.',
      tools: sellerTools({
        kit,
        fault,
        ...(process.env['ADCP_SELLER_TEST_HOOKS'] === '1'
          ? { afterEffect: holdAfterEffect, beforeWork: holdUntilAborted }
          : {}),
      }),
      ...(controller === undefined
        ? {}
        : {
            testController: {
              scenarios: sellerScenarios(kit, db),
              ...(controller.isLive === undefined
                ? {}
                : { isSandbox: (context: { principal: string }) => !controller.isLive!(context.principal) }),
            },
          }),
      adcpVersions,
      validateResponses: options.validateResponses ?? 'off',
      outputSchemas: options.outputSchemas === true,
      ...(options.onActivity === undefined ? {} : { onActivity: options.onActivity }),
      store,
      // A shared store means a fleet may serve this caller: no instance keeps a 2025-era session.
      mcpSessions: options.storeUrl === undefined ? 'memory' : 'stateless',
      cardMeta: { protocols_supported: ['media_buy'], extensions_supported: [] },
      idempotency: { store: idempotency },
      // What the tools and configuration cannot tell (adcp, protocols and signing are generated).
      capabilities: {
        // What the kit states of itself (buying modes, proposals, conversion tracking, audiences,
        // supported_billing).
        ...kit.capabilities,
        media_buy: {
          ...(kit.capabilities.media_buy as JsonObject),
          features: {
            ...((kit.capabilities.media_buy as JsonObject).features as JsonObject),
            async_media_buy: true,
            webhooks: true,
            creative_sync: true,
          },
          channels: ['ctv', 'olv', 'display', 'podcast', 'dooh', 'social'],
        },
        // The media-buy specialisms whose storyboards the seller is walked against (issue 31).
        specialisms: ['sales-guaranteed', 'sales-non-guaranteed'],
        ...(brand === undefined ? {} : { identity: brand.identity }),
      },
      webhooks: {
        ...(signingKey === undefined ? {} : { signingKey }),
        // Issue 36 item 6: loopback binding lifts the loopback rule only, and not behind a public
        // URL off this machine (a loopback public URL, a same-host proxy, is still all local).
        allowInsecureUrls: options.allowInsecureWebhookUrls === true,
        allowLoopbackUrls:
          isLoopbackAddress(host) &&
          (options.publicUrl === undefined || isLoopbackAddress(new URL(options.publicUrl).hostname)),
      },
      ...(generated === undefined ? {} : { publicJwks: webhookJwks }),
      ...(brand === undefined ? {} : { brandJson: brand.brandJson }),
      ...(options.sendWebhook === undefined ? {} : { sendWebhook: options.sendWebhook }),
      ...(options.authenticate === undefined ? {} : { authenticate: options.authenticate }),
      ...(options.auth === undefined ? {} : { auth: options.auth }),
      ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
      ...(requestSigning === undefined ? {} : { requestSigning }),
    });
  } catch (error) {
    await db.close();
    await closeStore();
    throw error;
  }
  let listening: ListeningAdcpServer;
  try {
    listening = await server.listen({ port: options.port ?? 0, host });
  } catch (error) {
    await server.close();
    await db.close();
    await closeStore();
    throw error;
  }
  return {
    ...listening,
    webhookJwks,
    ...(brandJsonUrl === undefined ? {} : { brandJsonUrl }),
    async close(closeOptions) {
      const report = await listening.close(closeOptions);
      await db.close();
      await closeStore();
      return report;
    },
  };
}
