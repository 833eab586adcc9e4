import { createServer } from 'node:http';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonObject } from '../core/types.js';
import { MAX_JSON_DEPTH } from '../core/json-depth.js';
import { MemoryTaskStore } from '../store/memory-task-store.js';
import { MemoryIdempotencyStore } from '../store/memory-idempotency-store.js';
import { createA2AEndpoint } from './a2a/a2a-sdk-endpoint.js';
import { createAdcpTaskRunner, type ShutdownReport } from './tasks/adcp-tasks.js';
import { buildCapabilities } from './tools/capabilities.js';
import { defaultCapabilitiesTool } from './tools/default-capabilities-tool.js';
import { buildAgentCard, buildServerCard } from './http/cards.js';
import { agentCardSecurity } from './auth/card-security.js';
import { isLoopbackHostAt, isLoopbackAddress, LOOPBACK_HOSTS, publicOriginOf } from './http/http-guard.js';
import { ABANDONED, admissionRequest, admit, type AdmissionConfig } from './http/admission.js';
import { rpcErrorAnswer, sendAnswer } from './http/answer.js';
import { ADCP_SERVER_PATHS, isAgentCardPath } from './http/server-paths.js';
import { createIdempotencyLayer } from './calls/idempotency.js';
import { requiresIdempotencyKey } from './calls/requires-idempotency-key.js';
import { createMcpEndpoint } from './mcp/mcp-endpoint.js';
import { createModernMcpEndpoint, isLegacyMcpRequest } from './mcp/mcp-modern-endpoint.js';
import { createMcpTaskWork } from './mcp/mcp-task-work.js';
import { startCancelWatch } from './tasks/cancel-watch.js';
import { createAdcpServing } from './tools/adcp-serving.js';
import { createRequestSigningVerifier } from './auth/request-signing.js';
import { createRequestAuth } from './auth/request-auth.js';
import { PROTECTED_RESOURCE_PREFIX } from './auth/protected-resource.js';
import { createServerWebhooks } from './tasks/server-webhooks.js';
import { taskStatusTools } from './tasks/task-status-tools.js';
import { advertiseComplianceTesting, createTestControllerTool } from './tools/test-controller.js';
import { startTaskUpkeep } from './tasks/task-upkeep.js';
import { createReadiness } from './http/readiness.js';
import { waitForDrain } from './http/wait-for-drain.js';
import type { AdcpToolDefinition, CreateAdcpServerOptions } from './types.js';
import { ADCP_WIRE_PACKAGE } from '../transport/package-version.js';
import { checkActivityListener } from '../telemetry/activity.js';
import { traceHttpServer, withActivity } from '../telemetry/server-tracing.js';
import { traceStore } from '../telemetry/traced-store.js';
import { MAX_TIMER_MS, nonNegativeMs, positiveInteger, positiveMs } from './numeric-options.js';

export { ADCP_SERVER_PATHS };

/** How `close` stops a server. */
export interface CloseOptions {
  /**
   * Drain first, for up to this many ms: readiness goes false, no new connection is accepted,
   * requests in progress, running tasks and owed webhooks may finish (every answer closes its
   * connection). What is left after it is cut short (see `ShutdownReport`). Default 0: at once.
   * A `close()` without it during a drain ends the drain now.
   */
  graceMs?: number;
}

export interface ListeningAdcpServer {
  /** Base URL (`http://127.0.0.1:PORT`). */
  url: string;
  mcpUrl: string;
  /** The A2A base URL (the agent card is at `/.well-known/agent-card.json` under it). */
  a2aUrl: string;
  /** Stops everything (see `AdcpServer.close`) and says what it cut short. */
  close(options?: CloseOptions): Promise<ShutdownReport>;
}

export interface AdcpServer {
  /** Serves one request; use it to mount the server in another `node:http` server. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Starts a `node:http` server of its own. Default host 127.0.0.1, port 0 (any free port). */
  listen(options?: { port?: number; host?: string }): Promise<ListeningAdcpServer>;
  /**
   * Stops background work, sessions, the listener (if any) and the default store. With `graceMs`,
   * drains first (see `CloseOptions`); then async work still running is aborted and a webhook
   * still being delivered is given up. Aborted work's task ends `failed`, or, on a store shared
   * by a fleet (one with `releaseLeases`), stays unfinished for another instance to take over.
   * The report counts each.
   */
  close(options?: CloseOptions): Promise<ShutdownReport>;
}

function rpcError(req: IncomingMessage, res: ServerResponse, status: number, code: number, message: string): void {
  sendAnswer(req, res, rpcErrorAnswer(status, code, message));
}

/**
 * Serves AdCP tools, defined once, over MCP (Streamable HTTP, MCP Tasks) and A2A (1.0 and v0.3
 * JSON-RPC), with the MCP server card and the A2A agent card. Refuses oversized bodies (413),
 * foreign Host/Origin on loopback (403), and duplicate-key or malformed JSON (JSON-RPC parse error).
 */
export function createAdcpServer(options: CreateAdcpServerOptions): AdcpServer {
  if (!Array.isArray(options.tools)) throw new TypeError('createAdcpServer: pass { tools: [...] }');
  if (options.auth !== undefined && options.authenticate !== undefined) {
    throw new TypeError('createAdcpServer: pass auth or authenticate, not both');
  }
  const serving = createAdcpServing(options);
  // Checked before anything starts: a bad auth configuration throws with nothing to clean up.
  const requestAuth = options.auth === undefined ? undefined : createRequestAuth(options.auth, serving.defaultRelease);
  checkActivityListener('createAdcpServer', options.onActivity);
  if (options.mcpSessions !== undefined && options.mcpSessions !== 'memory' && options.mcpSessions !== 'stateless') {
    throw new TypeError("createAdcpServer: mcpSessions must be 'memory' or 'stateless'");
  }
  // Numbers are checked before anything starts, too (numeric-options.ts).
  // The in-flight lease and the HTTP request timeout are the request timeout plus 5 s.
  const requestTimeoutMs = positiveMs('requestTimeoutMs', options.requestTimeoutMs, 30_000, MAX_TIMER_MS - 5_000);
  const keepAliveTimeoutMs = positiveMs('keepAliveTimeoutMs', options.keepAliveTimeoutMs, 65_000);
  const sessionIdleMs = positiveMs('sessionIdleMs', options.sessionIdleMs, 30 * 60 * 1000);
  const healthTimeoutMs = positiveMs('health.timeoutMs', options.health?.timeoutMs, 2_000);
  const taskAfterMs = nonNegativeMs('taskAfterMs', options.taskAfterMs, 2_000);
  const maxBodyBytes = positiveInteger('maxBodyBytes', options.maxBodyBytes, 1024 * 1024);
  const maxJsonDepth = positiveInteger('maxJsonDepth', options.maxJsonDepth, MAX_JSON_DEPTH);
  const maxSessions = positiveInteger('maxSessions', options.maxSessions, 1000);
  const maxSessionsPerPrincipal = positiveInteger('maxSessionsPerPrincipal', options.maxSessionsPerPrincipal, 100);
  const ownsStore = options.store === undefined;
  const store = traceStore(options.store ?? new MemoryTaskStore(), 'tasks');
  const webhooks = createServerWebhooks({
    ...options.webhooks,
    ...(options.sendWebhook === undefined ? {} : { send: options.sendWebhook }),
    ...(options.onActivity === undefined ? {} : { onActivity: options.onActivity }),
    // Named in proof-of-control challenges as `seller_agent_url`: the card's URL for that wire.
    agentUrl: (protocol) => {
      const base = publicOrigin ?? listenOrigin;
      return base === undefined ? undefined : `${base}${ADCP_SERVER_PATHS[protocol]}`;
    },
  });
  const runner = createAdcpTaskRunner({ store, webhooks, protocolOf: (tool) => serving.protocolOf(tool) });
  const replayTtlSeconds = options.idempotency?.replayTtlSeconds ?? 86_400;
  if (!Number.isInteger(replayTtlSeconds) || replayTtlSeconds < 3600 || replayTtlSeconds > 604_800) {
    throw new RangeError('createAdcpServer: idempotency.replayTtlSeconds must be an integer from 3600 to 604800');
  }
  const ownsIdempotencyStore = options.idempotency?.store === undefined;
  const idempotencyStore = traceStore(options.idempotency?.store ?? new MemoryIdempotencyStore(), 'idempotency');
  const idempotency = createIdempotencyLayer({
    store: idempotencyStore,
    tasks: store,
    // security.md, rule 6: a retry up to 60 s past the window is still replayed (clock skew).
    replayTtlMs: (replayTtlSeconds + 60) * 1000,
    inFlightMs: requestTimeoutMs + 5_000,
    waitMs: Math.max(1_000, requestTimeoutMs - 5_000),
    ...(options.idempotency?.insertLimits === undefined ? {} : { insertLimits: options.idempotency.insertLimits }),
  });
  const tools = new Map<string, AdcpToolDefinition>();
  const adcpVersion = serving.defaultRelease;
  // Signers sign the public URL: behind a TLS terminator its scheme is not the connection's.
  const publicScheme = options.publicUrl?.startsWith('https:') === true ? 'https' : undefined;
  const signing =
    options.requestSigning === undefined
      ? undefined
      : createRequestSigningVerifier(
          { ...(publicScheme === undefined ? {} : { publicScheme }), ...options.requestSigning },
          // A request alone verifies on the event loop; with others in flight, on the thread pool.
          { busy: () => inFlight > 1, authority: (req) => signedAuthority(req) },
        );
  const statusTools = taskStatusTools(runner);
  const protocols = options.cardMeta?.protocols_supported;
  const capabilities = buildCapabilities({
    releases: serving.supported,
    replayTtlSeconds,
    inFlightMaxSeconds: Math.ceil((requestTimeoutMs + 5_000) / 1000),
    tools: [...statusTools, ...options.tools].map((t) => t.name),
    ...(Array.isArray(protocols) ? { protocols: protocols.filter((p): p is string => typeof p === 'string') } : {}),
    ...(options.webhooks?.signingKey === undefined ? {} : { webhookSigningAlg: options.webhooks.signingKey.alg }),
    ...(signing === undefined ? {} : { requestSigning: signing.capability }),
    ...(options.capabilities === undefined ? {} : { override: options.capabilities }),
  });
  const builtIns = [
    defaultCapabilitiesTool(capabilities),
    ...statusTools,
    ...(options.testController === undefined ? [] : [createTestControllerTool(options.testController)]),
  ];
  for (const tool of [...builtIns, ...options.tools]) {
    if (typeof tool.name !== 'string' || typeof tool.handler !== 'function') {
      throw new TypeError('createAdcpServer: every tool needs a name and a handler');
    }
    // A tool of the caller's replaces a built-in of the same name.
    const wrapped = idempotency.wrap(tool, { requiresKey: requiresIdempotencyKey(tool, serving.supported) });
    tools.set(tool.name, withActivity(wrapped, options.onActivity));
  }
  if (signing !== undefined) advertiseRequestSigning(tools, signing.capability);
  if (options.testController !== undefined) advertiseComplianceTesting(tools, options.testController);
  // Leases of this process's tasks, and failing the tasks of processes that died (task-upkeep.ts).
  const upkeep = startTaskUpkeep({ store, idempotency: idempotencyStore, onAbandoned: () => runner.pollOutbox() });
  const readiness = createReadiness({
    stores: [store, idempotencyStore],
    ...(options.health?.check === undefined ? {} : { check: options.health.check }),
    timeoutMs: healthTimeoutMs,
    cacheMs: 1_000,
  });
  // Ready once the first upkeep round has failed what a dead process left behind.
  void upkeep.ready.then(() => readiness.serving());
  // Requests being answered, for a drain to wait on; a long-lived stream (GET /mcp) is not waited for.
  let inFlight = 0;
  const name = options.name ?? 'adcp-wire-agent';
  const version = options.version ?? ADCP_WIRE_PACKAGE.version;
  let allowedHosts: ReadonlySet<string> | undefined =
    options.allowedHosts === undefined ? undefined : new Set(options.allowedHosts.map((h) => h.toLowerCase()));
  // Listening on loopback by default: loopback names must carry our port (another port is another server).
  let loopbackPort: number | undefined;
  /** The public URL's authority (`host[:port]`), which a same-host proxy in front passes as `Host`. */
  let publicHost: string | undefined;

  const servedOn = (protocol: 'mcp' | 'a2a') =>
    new Map([...tools].filter(([, tool]) => tool.protocols === undefined || tool.protocols.includes(protocol)));
  const mcpTools = servedOn('mcp');
  const a2aTools = servedOn('a2a');
  // Work running here whose task another instance of a fleet cancelled is aborted (cancel-watch.ts).
  const cancelWatch = startCancelWatch(store);
  const taskWork = createMcpTaskWork(store, requestTimeoutMs, cancelWatch);
  // The 2025 era (initialize, sessions, experimental Tasks) on SDK 1.x; the 2026-07-28 era,
  // stateless, on SDK v2. Same tools, store and runner (docs/server.md, "MCP eras").
  const mcp = createMcpEndpoint({
    tools: mcpTools,
    store,
    runner,
    taskWork,
    name,
    version,
    adcpVersion,
    serving,
    requestTimeoutMs,
    maxSessions,
    maxSessionsPerPrincipal,
    sessionIdleMs,
    stateless: options.mcpSessions === 'stateless',
    outputSchemas: options.outputSchemas === true,
  });
  const mcpModern = createModernMcpEndpoint({
    tools: mcpTools,
    store,
    runner,
    taskWork,
    name,
    version,
    adcpVersion,
    serving,
    requestTimeoutMs,
    taskAfterMs,
    maxBodyBytes,
    outputSchemas: options.outputSchemas === true,
  });
  const legacyUrl = (req: IncomingMessage) => cardInput(req).a2aLegacyUrl;
  const a2aShared = { tools: a2aTools, store, runner, adcpVersion, serving, requestTimeoutMs, cancelWatch };
  const a2a = createA2AEndpoint({ ...a2aShared, legacyUrl });
  // Same tools, store and runner: only the invocation rules differ (a2a-profile-gate.ts).
  const a2aLegacy = createA2AEndpoint({ ...a2aShared, mode: 'legacy' });

  // Card URLs come from configuration or from where we listen, never from the Host header a
  // caller sent (a forged Host would otherwise be served back as the agent's own address).
  const publicOrigin = options.publicUrl === undefined ? undefined : publicOriginOf(options.publicUrl);
  let listenOrigin: string | undefined;
  const localOrigin = (req: IncomingMessage) => {
    const address = req.socket.localAddress ?? '127.0.0.1';
    const shown = address.includes(':') ? `[${address}]` : address;
    return `http://${shown}:${req.socket.localPort ?? 80}`;
  };
  const cardSecurity = agentCardSecurity(options.auth);
  const cardInput = (req: IncomingMessage) => {
    const base = publicOrigin ?? listenOrigin ?? localOrigin(req);
    return {
      name,
      version,
      description: options.description ?? 'An AdCP agent served by adcp-wire.',
      adcpVersion,
      cardMeta: options.cardMeta ?? {},
      mcpTools: [...mcpTools.values()],
      a2aTools: [...a2aTools.values()],
      mcpUrl: `${base}${ADCP_SERVER_PATHS.mcp}`,
      a2aUrl: `${base}${ADCP_SERVER_PATHS.a2a}`,
      a2aLegacyUrl: `${base}${ADCP_SERVER_PATHS.a2aLegacy}`,
      security: cardSecurity,
    };
  };

  const originOf = (req: IncomingMessage) => publicOrigin ?? listenOrigin ?? localOrigin(req);
  /**
   * The authority a signed request must name (`host[:port]`): `publicUrl`'s, else the listen
   * address's with its port (any loopback name at that port on loopback), else the connection's
   * local address. Never the `Host` a sender chose: a request signed for another seller fails.
   */
  const signedAuthority = (req: IncomingMessage): string => {
    if (publicOrigin !== undefined) return new URL(publicOrigin).host;
    const own = new URL(listenOrigin ?? localOrigin(req));
    const host = req.headers.host;
    const port = Number(own.port || '80');
    if (typeof host === 'string' && isLoopbackAddress(own.hostname) && isLoopbackHostAt(host, port)) {
      return host.trim().toLowerCase();
    }
    return own.host;
  };
  const endpointPaths = [ADCP_SERVER_PATHS.mcp, ADCP_SERVER_PATHS.a2a, ADCP_SERVER_PATHS.a2aLegacy] as const;

  /** The public documents served at GET paths, before authentication (admission.ts, `publicDocuments`). */
  const publicDocument = (req: IncomingMessage, path: string): JsonObject | undefined => {
    if (path === ADCP_SERVER_PATHS.serverCard || path === ADCP_SERVER_PATHS.serverCardAlt) {
      return buildServerCard(cardInput(req));
    }
    if (isAgentCardPath(path)) return buildAgentCard(cardInput(req));
    if (path === ADCP_SERVER_PATHS.a2aLegacyCard || path === ADCP_SERVER_PATHS.a2aLegacyCardAlt) {
      return buildAgentCard(cardInput(req), 'legacy');
    }
    if (path === ADCP_SERVER_PATHS.jwks && options.publicJwks !== undefined) return options.publicJwks;
    if (path === ADCP_SERVER_PATHS.brandJson && options.brandJson !== undefined) return options.brandJson;
    if (requestAuth !== undefined && path.startsWith(PROTECTED_RESOURCE_PREFIX)) {
      return requestAuth.metadataAt(path, originOf(req), endpointPaths);
    }
    return undefined;
  };
  const admission: AdmissionConfig = {
    readiness,
    hostRule: () => ({
      allowed: allowedHosts,
      ...(loopbackPort === undefined ? {} : { loopbackPort }),
      ...(publicHost === undefined ? {} : { publicHost }),
    }),
    publicDocument,
    requestAuth,
    authenticate: options.authenticate,
    signing,
    originOf,
    maxBodyBytes,
    maxJsonDepth,
  };

  const handle = (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'GET') {
      inFlight += 1;
      res.once('close', () => (inFlight -= 1));
    }
    return traceHttpServer(req, res, Object.values(ADCP_SERVER_PATHS), () => serve(req, res));
  };
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Draining: answer what still arrives on an open connection, then close that connection.
    if (readiness.phase === 'draining') res.setHeader('connection', 'close');
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    // Every check before dispatch, in order, by name: http/admission.ts.
    const admitted = await admit(admissionRequest(req, path), admission);
    if (admitted === ABANDONED) return;
    if ('status' in admitted) {
      sendAnswer(req, res, admitted);
      return;
    }
    const { endpoint, principal, body, resolution } = admitted;
    try {
      if (endpoint === 'mcp')
        await ((await isLegacyMcpRequest(req, body)) ? mcp : mcpModern).handle(req, res, body, principal);
      else await (endpoint === 'a2aLegacy' ? a2aLegacy : a2a).handle(req, res, body, principal, resolution);
    } catch {
      rpcError(req, res, 500, -32603, 'Internal error');
    }
  };

  let listener: HttpServer | undefined;
  let closed: Promise<ShutdownReport> | undefined;
  const hurry = new AbortController();
  const close = (closeOptions: CloseOptions = {}): Promise<ShutdownReport> => {
    const graceMs = closeOptions.graceMs ?? 0;
    if (!Number.isFinite(graceMs) || graceMs < 0) {
      throw new RangeError('close: graceMs must be a number of milliseconds, 0 or more');
    }
    if (closed !== undefined && graceMs === 0) hurry.abort();
    return (closed ??= shutdown(graceMs));
  };
  const shutdown = async (graceMs: number): Promise<ShutdownReport> => {
    readiness.drain();
    if (graceMs > 0) {
      listener?.close();
      listener?.closeIdleConnections();
      await waitForDrain(() => inFlight + runner.busy + taskWork.busy, graceMs, hurry.signal);
    }
    taskWork.close();
    await cancelWatch.stop();
    await mcp.close();
    await mcpModern.close();
    await a2a.close();
    await a2aLegacy.close();
    // Upkeep stops first: a renewal after the hand-over would take the released leases back.
    await upkeep.stop();
    const report = await runner.close({ handOver: true });
    if (listener !== undefined) {
      const server = listener;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
    if (ownsStore) await store.close();
    if (ownsIdempotencyStore) await idempotencyStore.close();
    return report;
  };

  return {
    handle,
    async listen(listenOptions = {}) {
      if (listener !== undefined) throw new Error('createAdcpServer: already listening');
      const host = listenOptions.host ?? '127.0.0.1';
      // Tasks a previous run left unfinished and whose lease already lapsed are failed before
      // the first request; the rest as their leases lapse.
      await upkeep.ready;
      readiness.serving();
      const guardLoopback = allowedHosts === undefined && isLoopbackAddress(host);
      // The request deadline as documented: node checks requestTimeout/headersTimeout only every
      // connectionsCheckingInterval (30 s by default), so a slow sender held a 30 s deadline 35-65 s.
      const server = createServer({ connectionsCheckingInterval: deadlineCheckMs(requestTimeoutMs) }, (req, res) => {
        handle(req, res).catch(() => rpcError(req, res, 500, -32603, 'Internal error'));
      });
      server.requestTimeout = requestTimeoutMs;
      server.headersTimeout = Math.min(requestTimeoutMs, 60_000);
      server.keepAliveTimeout = keepAliveTimeoutMs;
      listener = server;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(listenOptions.port ?? 0, host, () => resolve());
      });
      const address = server.address() as AddressInfo;
      if (guardLoopback) {
        // A same-host proxy in front keeps the public Host (signers sign publicUrl): it passes too.
        const names = publicOrigin === undefined ? [] : [new URL(publicOrigin).hostname.replace(/^\[|\]$/g, '')];
        allowedHosts = new Set([...LOOPBACK_HOSTS, ...names]);
        loopbackPort = address.port;
        publicHost = publicOrigin === undefined ? undefined : new URL(publicOrigin).host.toLowerCase();
      }
      const url = reachableUrl(address);
      if (address.address !== '0.0.0.0' && address.address !== '::') listenOrigin = url;
      return { url, mcpUrl: `${url}${ADCP_SERVER_PATHS.mcp}`, a2aUrl: `${url}${ADCP_SERVER_PATHS.a2a}`, close };
    },
    close,
  };
}

/**
 * How often node checks request deadlines: a tenth of the deadline, from 50 ms to 1 s, so a request
 * still arriving ends within the deadline plus that (31 s for the default 30 s). Each check walks
 * the open connections only.
 */
export function deadlineCheckMs(requestTimeoutMs: number): number {
  return Math.min(1_000, Math.max(50, Math.floor(requestTimeoutMs / 10)));
}

/**
 * The URL to hand back for a listening address. 0.0.0.0 and :: name no host anyone can connect
 * to, so those give loopback (this machine reaches the server there); cards then use the address
 * each caller connected to.
 */
export function reachableUrl(address: Pick<AddressInfo, 'address' | 'family' | 'port'>): string {
  const unspecified = address.address === '0.0.0.0' || address.address === '::';
  const host = unspecified ? (address.family === 'IPv6' ? '::1' : '127.0.0.1') : address.address;
  return `http://${address.family === 'IPv6' ? `[${host}]` : host}:${address.port}`;
}

/** Adds the `request_signing` block to the `get_adcp_capabilities` answer (unless its handler set one). */
function advertiseRequestSigning(tools: Map<string, AdcpToolDefinition>, capability: JsonObject): void {
  const tool = tools.get('get_adcp_capabilities');
  if (tool === undefined) return;
  tools.set(tool.name, {
    ...tool,
    async handler(args, context) {
      const answer = await tool.handler(args, context);
      return answer.request_signing === undefined && answer.adcp_error === undefined
        ? { ...answer, request_signing: capability }
        : answer;
    },
  });
}
