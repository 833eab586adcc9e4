import type { TransportOptions } from '../transport/transport.js';
import { createNodeHttpFetch, unlessGlobalFetchChanged, type NodeHttpFetch } from '../transport/node-http-fetch.js';
import { probeMcpEra, type EraProbe } from './mcp-era.js';

/** Longest wait for the era probe, ms. */
const PROBE_TIMEOUT_MS = 30_000;

/** What an MCP transport starts with: its fetch, and its era probe when one was sent ahead. */
export interface McpStart {
  /** Every request's fetch: the user's, or the transport's own over `node:http` (`http`). */
  fetch: typeof fetch;
  /** The fetch over `node:http` when the user gave none: its keep-alive sockets end with close(). */
  http: NodeHttpFetch | undefined;
  /** The `server/discover` probe, in flight or settled; undefined when none was sent ahead. */
  era: Promise<EraProbe> | undefined;
}

/** Throws the TypeError createMcpTransport throws for a URL it cannot use. */
export function checkMcpUrl(url: unknown): asserts url is string {
  if (typeof url !== 'string' || !URL.canParse(url)) {
    throw new TypeError(`createMcpTransport: url must be an absolute URL, got ${String(url)}`);
  }
}

/**
 * The fetch of one MCP transport: the user's, or one over `node:http` while the global fetch is
 * Node's own and sends as by default (else the global fetch), wrapped by `wrapFetch`.
 */
export type McpFetch = Pick<McpStart, 'fetch' | 'http'>;

export function mcpFetch(options: TransportOptions): McpFetch {
  if (options.fetch !== undefined) return { fetch: options.fetch, http: undefined };
  const http = createNodeHttpFetch();
  const base = unlessGlobalFetchChanged(http.fetch);
  return { fetch: options.wrapFetch?.(base) ?? base, http };
}

/**
 * Runs the era probe as given, or inside what the caller wraps it in: AdcpClient gives it an
 * OpenTelemetry client span of its own (`src/client/create-transport.ts`; this room may not
 * import telemetry, docs/architecture.md).
 */
export type ProbeWrapper = (probe: () => Promise<EraProbe>) => Promise<EraProbe>;

/** Sends the `server/discover` probe that learns the agent's era (see `probeMcpEra`). */
export function probeEra(options: TransportOptions, fetcher: typeof fetch, wrap?: ProbeWrapper): Promise<EraProbe> {
  const probe = () =>
    probeMcpEra({
      url: options.url,
      fetch: fetcher,
      maxBytes: options.maxBytes,
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      ...(options.headers === undefined ? {} : { headers: options.headers }),
    });
  return wrap === undefined ? probe() : wrap(probe);
}

/**
 * Starts an MCP transport before the MCP SDK is loaded (on `fetched`, when the caller made it
 * already): with `mcpEra: 'auto'` the era probe
 * goes out now, and its round trip overlaps the SDK's load (this module and the modules it
 * imports need none of the SDK client). The transport is created on a client's first use, which
 * needs the era, so this is the probe that use would send next, not an extra request. The SDK
 * 2025-era session is opened only once the probe has answered: a call never runs under an era
 * not yet known, and a modern server sees no `initialize`.
 */
export function startMcp(options: TransportOptions, wrap?: ProbeWrapper, fetched?: McpFetch): McpStart {
  checkMcpUrl(options.url);
  const { fetch: fetcher, http } = fetched ?? mcpFetch(options);
  const era = (options.mcpEra ?? 'auto') === 'auto' ? probeEra(options, fetcher, wrap) : undefined;
  // Awaited by the transport's era(); a probe whose transport is never made must not go unhandled.
  era?.catch(() => undefined);
  return { fetch: fetcher, http, era };
}
