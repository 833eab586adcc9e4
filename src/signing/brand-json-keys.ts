import { isJsonObject } from '../core/json-object.js';
import { parseJsonStrict } from '../core/json.js';
import { checkOutboundUrl } from '../core/outbound-url.js';
import { readCappedBody } from '../transport/capped-body.js';
import { createPinnedFetch, type ResolveHost } from '../transport/pinned-fetch.js';
import type { Jwk, JwksSource } from './jwks.js';
import { registrableDomain } from './registrable-domain.js';
import { remoteJwks } from './remote-jwks.js';

/** The discovery chain's failures (security.md, "Rejection codes for this discovery chain"): `request_signature_<failure>`. */
export type KeyDiscoveryFailure =
  | 'brand_json_url_missing'
  | 'capabilities_unreachable'
  | 'brand_json_unreachable'
  | 'brand_json_malformed'
  | 'brand_origin_mismatch'
  | 'agent_not_in_brand_json'
  | 'brand_json_ambiguous'
  | 'key_origin_mismatch'
  | 'key_origin_missing';

/** One step of the chain failed; `failure` names the spec's code, `message` is for operators. */
export class KeyDiscoveryError extends Error {
  override readonly name = 'KeyDiscoveryError';
  constructor(
    readonly failure: KeyDiscoveryFailure,
    message: string,
  ) {
    super(message);
  }
}

/** A signing agent to trust: its URL (`A`), and its `brand_json_url` when onboarding already gave it. */
export interface BrandJsonAgent {
  url: string;
  brandJsonUrl?: string;
}

export interface BrandJsonKeysOptions {
  /** The signing agents whose keys are trusted, each resolved through its brand.json. */
  agents: (string | BrandJsonAgent)[];
  /**
   * The agent's `get_adcp_capabilities` answer, called as a protocol call over its transport
   * (`agentCapabilities` from `adcp-wire/client` does it). Needed for every agent given without
   * `brandJsonUrl`; also read for `identity.key_origins` when given.
   */
  capabilities?: (agentUrl: string) => Promise<unknown>;
  /**
   * The fetch for brand.json and the JWKS (tests, an egress proxy); it does its own resolving.
   * Default: the SSRF-pinning fetch of webhook delivery (`createPinnedFetch`): host names are
   * resolved per connection, special-use answers refused, the checked address used. Every URL
   * of the chain passes `checkOutboundUrl` first either way (https, no special-use IP literal).
   */
  fetch?: typeof fetch;
  /** Resolver for the default fetch (tests; the system resolver otherwise). */
  resolveHost?: ResolveHost;
  /** How long a resolved chain is kept (default 5 min; at most 30 min, the revocation polling ceiling). */
  cacheMs?: number;
  /** How long a failed resolution is kept before it is tried again (default 30 s; at most 60 s). */
  negativeCacheMs?: number;
  /** brand.json body cap in bytes (default 256 KiB). */
  maxBytes?: number;
  /** Deadline of each fetch in ms (default 10 s). */
  timeoutMs?: number;
  now?: () => number;
}

interface Resolved {
  at: number;
  jwks?: JwksSource;
  error?: KeyDiscoveryError;
}

const fail = (failure: KeyDiscoveryFailure, message: string): never => {
  throw new KeyDiscoveryError(failure, message);
};

function httpsUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** The `agents[]` entries of a brand.json: top level (brand agent) and under `house` (house portfolio). */
function agentEntries(brand: Record<string, unknown>): Record<string, unknown>[] {
  const lists = [brand.agents, isJsonObject(brand.house) ? brand.house.agents : undefined];
  return lists.flatMap((list) => (Array.isArray(list) ? list.filter(isJsonObject) : []));
}

function delegates(brand: Record<string, unknown>, etld1: string): boolean {
  const operators = [
    brand.authorized_operators,
    isJsonObject(brand.house) ? brand.house.authorized_operators : undefined,
  ].flatMap((list) => (Array.isArray(list) ? list.filter(isJsonObject) : []));
  return operators.some((op) => typeof op.domain === 'string' && op.domain.toLowerCase() === etld1);
}

/**
 * Signing keys found through the `brand_json_url` chain (security.md, "Discovering an agent's
 * signing keys via `brand_json_url`", steps 1-8): the agent's capabilities give
 * `identity.brand_json_url` (https); the agent's eTLD+1 must equal the brand.json's, or the
 * brand.json's `authorized_operators[]` must list it; brand.json is fetched without redirects,
 * capped and strictly parsed; exactly one `agents[]` entry byte-equals the agent URL; its
 * `jwks_uri` (default `/.well-known/jwks.json` at the agent's origin) must sit on the origin
 * `identity.key_origins.request_signing` declares. A `keyid` is accepted only when exactly one
 * configured agent publishes it. Failures throw `KeyDiscoveryError`, which the verifier answers
 * as `request_signature_<failure>`. Results are cached; failures for at most 60 s.
 */
export function brandJsonKeys(options: BrandJsonKeysOptions): JwksSource {
  const agents = options.agents.map((a) => (typeof a === 'string' ? { url: a } : a));
  if (agents.length === 0) throw new TypeError('brandJsonKeys: name at least one agent');
  for (const agent of agents) {
    if (httpsUrl(agent.url) === undefined)
      throw new TypeError(`brandJsonKeys: agent ${agent.url} must be an https URL`);
    if (agent.brandJsonUrl === undefined && options.capabilities === undefined) {
      throw new TypeError(`brandJsonKeys: agent ${agent.url} needs brandJsonUrl or the capabilities option`);
    }
  }
  const doFetch =
    options.fetch ?? createPinnedFetch(options.resolveHost === undefined ? {} : { resolve: options.resolveHost });
  const now = options.now ?? Date.now;
  const cacheMs = Math.min(options.cacheMs ?? 300_000, 1_800_000);
  const negativeMs = Math.min(options.negativeCacheMs ?? 30_000, 60_000);
  const maxBytes = options.maxBytes ?? 262_144;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const cache = new Map<string, Resolved>();
  const inflight = new Map<string, Promise<Resolved>>();

  async function fetchBrandJson(url: URL): Promise<Record<string, unknown>> {
    const destination = checkOutboundUrl(url.href);
    if (!destination.ok) fail('brand_json_unreachable', `brand.json ${url.href} refused: ${destination.reason}`);
    let response: Response;
    try {
      response = await doFetch(url, {
        redirect: 'manual',
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      return fail('brand_json_unreachable', `brand.json ${url.href}: ${(error as Error).message}`);
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      fail('brand_json_unreachable', `brand.json ${url.href}: HTTP ${response.status} (redirects are not followed)`);
    }
    const body = await readCappedBody(response, maxBytes).catch(() => undefined);
    if (body === undefined) return fail('brand_json_unreachable', `brand.json ${url.href}: the body could not be read`);
    if (body === 'too_large') return fail('brand_json_malformed', `brand.json ${url.href} is over ${maxBytes} bytes`);
    const parsed = parseJsonStrict(body.toString('utf8'), { maxBytes });
    if (!parsed.ok || !isJsonObject(parsed.value)) {
      return fail('brand_json_malformed', `brand.json ${url.href} is not a strict JSON object`);
    }
    return parsed.value;
  }

  async function resolve(agent: BrandJsonAgent): Promise<JwksSource> {
    const agentUrl = new URL(agent.url);
    let capabilities: Record<string, unknown> = {};
    if (options.capabilities !== undefined) {
      try {
        const answer = await options.capabilities(agent.url);
        capabilities = isJsonObject(answer) ? answer : {};
      } catch (error) {
        // Onboarding gave the brand.json: the capabilities only add key_origins.
        if (agent.brandJsonUrl === undefined) {
          fail('capabilities_unreachable', `capabilities of ${agent.url}: ${(error as Error).message}`);
        }
      }
    }
    const identity = isJsonObject(capabilities.identity) ? capabilities.identity : {};
    // 2. The trust root: the https brand_json_url.
    const brandUrl = httpsUrl(agent.brandJsonUrl ?? identity.brand_json_url);
    if (brandUrl === undefined) {
      return fail('brand_json_url_missing', `${agent.url} declares no https identity.brand_json_url`);
    }
    // 4. brand.json, then 3. the origin binding (which may need authorized_operators).
    const brand = await fetchBrandJson(brandUrl);
    const agentDomain = registrableDomain(agentUrl.hostname);
    const brandDomain = registrableDomain(brandUrl.hostname);
    if (agentDomain === undefined || (agentDomain !== brandDomain && !delegates(brand, agentDomain))) {
      fail(
        'brand_origin_mismatch',
        `${agent.url} (${agentDomain ?? 'no eTLD+1'}) is not ${brandDomain ?? 'no eTLD+1'} and is not an authorized operator`,
      );
    }
    // 5. Exactly one agents[] entry whose url byte-equals the agent URL.
    const matches = agentEntries(brand).filter((entry) => entry.url === agent.url);
    if (matches.length === 0) fail('agent_not_in_brand_json', `${agent.url} is not in ${brandUrl.href} agents[]`);
    if (matches.length > 1)
      fail('brand_json_ambiguous', `${matches.length} agents[] entries of ${brandUrl.href} match`);
    // 6. Its jwks_uri, by default /.well-known/jwks.json at the agent's origin.
    const declared = (matches[0] as Record<string, unknown>).jwks_uri;
    const jwksUrl = declared === undefined ? new URL('/.well-known/jwks.json', agentUrl.origin) : httpsUrl(declared);
    if (jwksUrl === undefined) return fail('brand_json_malformed', `the jwks_uri of ${agent.url} is not https`);
    // The jwks_uri is the counterparty's to choose: the SSRF rules of every fetch apply (security.md,
    // "SSRF protection"), before anything is sent.
    const jwksDestination = checkOutboundUrl(jwksUrl.href);
    if (!jwksDestination.ok)
      return fail('brand_json_malformed', `the jwks_uri of ${agent.url} is refused: ${jwksDestination.reason}`);
    // 7. key_origins consistency for request signing.
    const origins = isJsonObject(identity.key_origins) ? identity.key_origins : undefined;
    const signingDeclared = declaresRequestSigning(capabilities);
    if (origins?.request_signing !== undefined || signingDeclared) {
      const expected = httpsUrl(origins?.request_signing);
      if (expected === undefined) {
        fail(
          'key_origin_missing',
          `${agent.url} declares request signing without identity.key_origins.request_signing`,
        );
      } else if (expected.host !== jwksUrl.host) {
        fail('key_origin_mismatch', `request_signing keys are served from ${jwksUrl.host}, declared ${expected.host}`);
      }
    }
    // 8. The JWKS itself: cached, capped, refetched at most once per cooldown on a miss.
    return remoteJwks(jwksUrl.href, { fetch: doFetch, cacheMs, timeoutMs, ...(options.now ? { now } : {}) });
  }

  function resolved(agent: BrandJsonAgent): Promise<Resolved> {
    const hit = cache.get(agent.url);
    if (hit !== undefined && now() - hit.at < (hit.error === undefined ? cacheMs : negativeMs)) {
      return Promise.resolve(hit);
    }
    let pending = inflight.get(agent.url);
    if (pending === undefined) {
      pending = resolve(agent)
        .then(
          (jwks): Resolved => ({ at: now(), jwks }),
          (error: unknown): Resolved => ({
            at: now(),
            error:
              error instanceof KeyDiscoveryError
                ? error
                : new KeyDiscoveryError('brand_json_unreachable', (error as Error).message),
          }),
        )
        .then((entry) => {
          cache.set(agent.url, entry);
          inflight.delete(agent.url);
          return entry;
        });
      inflight.set(agent.url, pending);
    }
    return pending;
  }

  async function lookup(keyid: string): Promise<Jwk | undefined> {
    const found: Jwk[] = [];
    let firstError: KeyDiscoveryError | undefined;
    for (const agent of agents) {
      const entry = await resolved(agent);
      if (entry.error !== undefined) {
        firstError ??= entry.error;
        continue;
      }
      const key = await entry.jwks?.get(keyid);
      if (key !== undefined) found.push(key);
    }
    if (found.length === 1) return found[0];
    if (found.length === 0 && firstError !== undefined) throw firstError;
    // Two agents publishing one keyid: it cannot be tied to one agents[] entry.
    return undefined;
  }

  return {
    get: lookup,
    async refresh() {
      for (const agent of agents) {
        const entry = cache.get(agent.url);
        await entry?.jwks?.refresh?.().catch(() => undefined);
      }
    },
  };
}

function declaresRequestSigning(capabilities: Record<string, unknown>): boolean {
  const block = capabilities.request_signing;
  if (!isJsonObject(block)) return false;
  return ['supported_for', 'required_for', 'protocol_methods_supported_for', 'protocol_methods_required_for'].some(
    (name) => Array.isArray(block[name]) && (block[name] as unknown[]).length > 0,
  );
}
