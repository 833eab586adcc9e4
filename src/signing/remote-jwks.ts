import { JwksUnavailableError, type Jwk, type JwksSource } from './jwks.js';
import { readCappedBody } from '../transport/capped-body.js';

export interface RemoteJwksOptions {
  /** Injected fetch (tests, proxies). Default: global fetch. */
  fetch?: typeof fetch;
  /** How long a fetched set is used before it is read again (default 5 min; spec: 1 to 30 min). */
  cacheMs?: number;
  /** Minimum time between two refetches triggered by an unknown `keyid` (default 30 s, per spec). */
  refetchCooldownMs?: number;
  /** Largest JWKS body accepted, in bytes (default 64 KiB). */
  maxBytes?: number;
  /** Largest number of keys kept from one set (default 100). */
  maxKeys?: number;
  timeoutMs?: number;
  now?: () => number;
}

/**
 * A JWKS read from `url` (the seller's `jwks_uri`), cached, size-capped, refreshed at most once per
 * cooldown on an unknown `keyid`. No redirects are followed. A failed refresh keeps the last good
 * set, so a JWKS outage does not reject keys already known; with no set at all, or a failed refetch
 * on a miss, `get`/`refresh` throw `JwksUnavailableError` (a retryable condition, not a bad key).
 */
export function remoteJwks(url: string, options: RemoteJwksOptions = {}): JwksSource & { readonly url: string } {
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.hostname !== '127.0.0.1' && parsed.hostname !== 'localhost') {
    throw new TypeError(`remoteJwks: ${url} must be https (loopback http is allowed for tests)`);
  }
  const doFetch = options.fetch ?? fetch;
  const cacheMs = options.cacheMs ?? 300_000;
  const cooldownMs = options.refetchCooldownMs ?? 30_000;
  const maxBytes = options.maxBytes ?? 65_536;
  const maxKeys = options.maxKeys ?? 100;
  const now = options.now ?? Date.now;
  let keys = new Map<string, Jwk>();
  let fetchedAt = -Infinity;
  let lastAttempt = -Infinity;
  let inflight: Promise<void> | undefined;
  let lastFailed = false;

  async function load(): Promise<void> {
    lastAttempt = now();
    const response = await doFetch(url, {
      redirect: 'manual',
      headers: { accept: 'application/jwk-set+json, application/json' },
      signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
    });
    if (response.status !== 200) throw new Error(`JWKS ${url}: HTTP ${response.status}`);
    const text = await readCapped(response, maxBytes);
    const body = JSON.parse(text) as { keys?: unknown };
    if (!Array.isArray(body.keys)) throw new Error(`JWKS ${url}: no keys array`);
    const next = new Map<string, Jwk>();
    for (const key of body.keys.slice(0, maxKeys)) {
      if (
        key !== null &&
        typeof key === 'object' &&
        typeof (key as Jwk).kid === 'string' &&
        !next.has((key as Jwk).kid as string)
      ) {
        next.set((key as Jwk).kid as string, key as Jwk);
      }
    }
    keys = next;
    fetchedAt = now();
  }

  function refreshOnce(): Promise<void> {
    inflight ??= load()
      .then(
        () => void (lastFailed = false),
        () => void (lastFailed = true),
      )
      .finally(() => {
        inflight = undefined;
      });
    return inflight;
  }

  return {
    url,
    async get(keyid) {
      if (now() - fetchedAt > cacheMs && now() - lastAttempt >= Math.min(cooldownMs, cacheMs)) await refreshOnce();
      if (fetchedAt === -Infinity) throw new JwksUnavailableError(url);
      return keys.get(keyid);
    },
    async refresh() {
      if (now() - lastAttempt < cooldownMs) return;
      await refreshOnce();
      // A miss after a failed refetch is not "unknown key": the set could not be read.
      if (lastFailed) throw new JwksUnavailableError(url);
    },
  };
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const body = await readCappedBody(response, maxBytes);
  if (body === 'too_large') throw new Error('JWKS too large');
  return body.toString('utf8');
}
