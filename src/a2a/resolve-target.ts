import { isJsonObject } from '../core/json-object.js';
import { AdcpWireError } from '../core/wire-error.js';
import type { JsonObject } from '../core/types.js';
import { discoverCard, type CardLookup } from './discover-card.js';
import { listEndpoints, selectEndpoint, type A2AEndpoint, type A2AWire } from './select-interface.js';
import { cardProfileOf, type CardProfile } from './profile-rules.js';

/** Where calls go, and what the card says about the agent. */
export interface Target {
  endpoint: A2AEndpoint;
  lookup: CardLookup;
  /** Origins FilePart URLs and `challenge_url` may point at: the card's and its interfaces'. */
  allowedOrigins: string[];
  /** The wire was chosen without a card: `method not found` may then also mean "try v0.3". */
  guessed: boolean;
  /** The card's AdCP A2A profile check (binding on its 1.0 interface); absent without a card. */
  profile?: CardProfile;
}

export interface ResolveOptions {
  url: string;
  pin: 'auto' | A2AWire;
  fetch: typeof fetch;
  headers: Record<string, string>;
  maxBytes: number;
  signal?: AbortSignal | undefined;
}

/** Reads the card of `options.url` (the `A2A-Version` of the wire wanted) and reports it. */
export function lookupCard(options: ResolveOptions): Promise<CardLookup> {
  return discoverCard(options.url, {
    fetch: options.fetch,
    headers: options.headers,
    maxBytes: options.maxBytes,
    version: options.pin === '0.3' ? '0.3' : '1.0',
    signal: options.signal,
  });
}

/**
 * Chooses the endpoint from the agent card (1.0 preferred unless pinned; unpinned, v0.3 when the
 * card breaks the AdCP profile and offers v0.3). No card: the URL is the
 * endpoint, on the pinned wire or 1.0 first. A card that is there but unusable throws `protocol`;
 * a card without the pinned wire throws `unsupported_version`.
 */
export async function resolveTarget(options: ResolveOptions): Promise<Target> {
  const lookup = await lookupCard(options);
  if (lookup.found) {
    let endpoint = selectEndpoint(lookup.card, lookup.url, options.pin);
    const profile = cardProfileOf(lookup);
    // `auto`: a 1.0 interface whose card breaks the profile (a plain A2A 1.0 agent) is passed
    // over for the card's v0.3 interface, which predates the profile (decision 0165).
    if (options.pin === 'auto' && endpoint.wire === '1.0' && profile !== undefined && !profile.ok) {
      endpoint = listEndpoints(lookup.card, lookup.url).find((e) => e.wire === '0.3') ?? endpoint;
    }
    const target: Target = { endpoint, lookup, allowedOrigins: originsOf(lookup.url, lookup.card), guessed: false };
    if (profile !== undefined) target.profile = profile;
    return target;
  }
  if (lookup.problem !== undefined) {
    const where = lookup.problemUrl ?? options.url;
    throw new AdcpWireError('protocol', `agent card at ${where} is unusable: ${lookup.problem}`, { url: where });
  }
  const wire: A2AWire = options.pin === '0.3' ? '0.3' : '1.0';
  return { endpoint: { wire, url: options.url }, lookup, allowedOrigins: [new URL(options.url).origin], guessed: true };
}

/** The v0.3 endpoint to fall back to: the card's, else the same URL. */
export function legacyEndpoint(target: Target): A2AEndpoint {
  if (target.lookup.found) {
    const legacy = listEndpoints(target.lookup.card, target.lookup.url).find((e) => e.wire === '0.3');
    if (legacy !== undefined) return legacy;
  }
  return { wire: '0.3', url: target.endpoint.url };
}

/** False only when the card says `capabilities.streaming: false`. */
export function canStream(target: Target): boolean {
  if (!target.lookup.found) return true;
  const capabilities = target.lookup.card['capabilities'];
  return !isJsonObject(capabilities) || capabilities['streaming'] !== false;
}

/** The card's own origin plus the origins of its interfaces: never anything from a task payload. */
function originsOf(cardUrl: string, card: JsonObject): string[] {
  const origins = new Set<string>([new URL(cardUrl).origin]);
  for (const endpoint of listEndpoints(card, cardUrl)) origins.add(new URL(endpoint.url).origin);
  return [...origins];
}
