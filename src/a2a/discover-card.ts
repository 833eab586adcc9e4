import { AdcpWireError } from '../core/wire-error.js';
import { parseJsonStrict } from '../core/json.js';
import type { JsonObject } from '../core/types.js';
import { readCappedText } from './read-capped.js';
import { fetchFailure } from './fetch-failure.js';

/** Agent cards are small; a card past this many bytes is refused even under a larger response cap. */
export const MAX_CARD_BYTES = 256 * 1024;

export const CARD_PATHS = ['/.well-known/agent-card.json', '/.well-known/agent.json'] as const;

export interface DiscoverCardOptions {
  fetch: typeof fetch;
  headers: Record<string, string>;
  maxBytes: number;
  /** Which card a dual-wire server should serve (`A2A-Version` header); absent means v0.3. */
  version: '1.0' | '0.3';
  signal?: AbortSignal | undefined;
}

export type CardLookup =
  | { found: true; url: string; card: JsonObject }
  | { found: false; tried: string[]; problem?: string; problemUrl?: string };

/**
 * Where to look for the card of `agentUrl`: the URL itself when it names a `.json` file,
 * otherwise `agent-card.json` then the legacy `agent.json`, under the URL's path first and then
 * under the origin (RFC 8615), without duplicates.
 */
export function cardCandidates(agentUrl: string): string[] {
  const url = new URL(agentUrl);
  url.search = '';
  url.hash = '';
  if (url.pathname.endsWith('.json')) return [url.href];
  const base = url.href.replace(/\/+$/, '');
  const out: string[] = [];
  for (const path of CARD_PATHS) {
    for (const prefix of [base, url.origin]) {
      const candidate = prefix + path;
      if (!out.includes(candidate)) out.push(candidate);
    }
  }
  return out;
}

/**
 * Fetches the agent card: the first candidate that answers 2xx is the card, and it must be a
 * JSON object within the size cap that names at least one interface; otherwise the lookup
 * reports the problem (a malformed card is not skipped in favour of a legacy one). A 404 moves
 * on to the next candidate. Network failures and aborts throw AdcpWireError.
 */
export async function discoverCard(agentUrl: string, options: DiscoverCardOptions): Promise<CardLookup> {
  const tried: string[] = [];
  const maxBytes = Math.min(options.maxBytes, MAX_CARD_BYTES);
  for (const candidate of cardCandidates(agentUrl)) {
    tried.push(candidate);
    const got = await getFollowingSameOrigin(candidate, options);
    const { response, url } = got;
    if (response === undefined) return { found: false, tried, problem: got.problem, problemUrl: url };
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      if (response.status === 404 || response.status === 410 || response.status === 405) continue;
      return { found: false, tried, problem: `HTTP ${response.status}`, problemUrl: url };
    }
    let text: string;
    try {
      text = await readCappedText(response, maxBytes, { url, tool: 'agent card', signal: options.signal });
    } catch (error) {
      if (error instanceof AdcpWireError && error.code === 'response_too_large') {
        return { found: false, tried, problem: `card is over ${maxBytes} bytes`, problemUrl: url };
      }
      throw error;
    }
    const parsed = parseJsonStrict(text);
    if (!parsed.ok)
      return { found: false, tried, problem: `card is not valid JSON (${parsed.reason})`, problemUrl: url };
    const problem = cardProblem(parsed.value);
    if (problem !== undefined) return { found: false, tried, problem, problemUrl: url };
    return { found: true, url, card: parsed.value as JsonObject };
  }
  return { found: false, tried };
}

const MAX_REDIRECTS = 3;

/**
 * GETs `url`, following at most three redirects that stay on the same origin (a card moved from
 * `agent.json` to `agent-card.json`); a redirect elsewhere is a problem, never followed with the
 * caller's headers.
 */
async function getFollowingSameOrigin(
  start: string,
  options: DiscoverCardOptions,
): Promise<{ response: Response; url: string } | { response: undefined; url: string; problem: string }> {
  let url = start;
  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      response = await options.fetch(url, {
        method: 'GET',
        headers: {
          ...options.headers,
          accept: 'application/json',
          ...(options.version === '1.0' ? { 'A2A-Version': '1.0' } : {}),
        },
        redirect: 'manual',
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (error) {
      throw fetchFailure(error, options.signal, { url, tool: 'agent card' });
    }
    if (response.status < 300 || response.status > 399 || response.status === 304) return { response, url };
    await response.body?.cancel().catch(() => undefined);
    const location = response.headers.get('location');
    let next: URL | undefined;
    try {
      next = location === null ? undefined : new URL(location, url);
    } catch {
      next = undefined;
    }
    if (next === undefined || next.origin !== new URL(url).origin) {
      return {
        response: undefined,
        url,
        problem: `card redirects (HTTP ${response.status}) off the agent's origin; not followed`,
      };
    }
    if (hop >= MAX_REDIRECTS)
      return { response: undefined, url, problem: `card redirects more than ${MAX_REDIRECTS} times` };
    url = next.href;
  }
}

/** The problem reported for a URL that serves a JWK Set (RFC 7517 `{ keys: [...] }`) instead of a card. */
export const JWKS_NOT_A_CARD = 'a JWK Set (public keys), not an agent card';

/** Why `value` is not a usable agent card, or `undefined` when it is. */
export function cardProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'card is not a JSON object';
  const card = value as JsonObject;
  if (Array.isArray(card['keys']) && card['url'] === undefined && card['supportedInterfaces'] === undefined)
    return JWKS_NOT_A_CARD;
  const interfaces = card['supportedInterfaces'];
  if (interfaces !== undefined && !Array.isArray(interfaces)) return 'supportedInterfaces is not an array';
  if (card['url'] !== undefined && typeof card['url'] !== 'string') return 'url is not a string';
  if (!Array.isArray(interfaces) && typeof card['url'] !== 'string')
    return 'card names no interface (no supportedInterfaces, no url)';
  if (card['skills'] !== undefined && !Array.isArray(card['skills'])) return 'skills is not an array';
  return undefined;
}
