import { checkOutboundUrl, isLoopbackHost } from '../core/outbound-url.js';
import { isJsonObject } from '../core/json-object.js';
import { parseJsonStrict } from '../core/json.js';
import { readCappedBody } from '../transport/capped-body.js';
import type { JsonObject } from '../core/types.js';
import type { ValidationOutcome } from './types.js';

/**
 * The runner tasks that fetch documents (storyboard-schema.yaml and the storyboards that use
 * them): RFC 9728 protected-resource metadata, RFC 8414 authorization-server metadata, the
 * agent's brand.json and its JWKS. Every URL the agent names is fetched as hostile input
 * (decision 0227): https and a public host, unless it is on the agent's own origin (the URL the
 * operator gave) or the operator allowed plain HTTP and private hosts (`allowHttp`); no redirect,
 * a size cap, the step's deadline, no credential.
 */
export interface FetchRules {
  agentUrl: string;
  allowHttp: boolean;
  timeoutMs: number;
  signal: AbortSignal;
  fetch: typeof fetch;
}

export interface Fetched {
  url: string;
  http_status?: number;
  body?: unknown;
  /** Why nothing usable came back (refused URL, network, not JSON, too large). */
  problem?: string;
}

const MAX_BYTES = 256 * 1024;

/** Why `url` may not be fetched under `rules`, or undefined. */
export function refusal(url: string, rules: FetchRules): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a URL';
  }
  if (parsed.origin === new URL(rules.agentUrl).origin) return undefined;
  const checked = checkOutboundUrl(url, { reach: rules.allowHttp ? 'any' : 'public' });
  if (!checked.ok)
    return `${checked.reason}${rules.allowHttp ? '' : " (only the agent's own origin may be http or local; --allow-http relaxes this for local tests)"}`;
  if (!rules.allowHttp && isLoopbackHost(parsed.hostname)) return 'loopback host';
  return undefined;
}

/** GETs a JSON document under the rules: one answer, never a throw. */
export async function fetchJson(url: string, rules: FetchRules): Promise<Fetched> {
  const refused = refusal(url, rules);
  if (refused !== undefined) return { url, problem: `refused to fetch ${url}: ${refused}` };
  let response: Response;
  try {
    response = await rules.fetch(url, {
      redirect: 'manual',
      headers: { accept: 'application/json' },
      signal: AbortSignal.any([rules.signal, AbortSignal.timeout(rules.timeoutMs)]),
    });
  } catch (error) {
    return { url, problem: `${url} could not be fetched: ${(error as Error).message}` };
  }
  const body = await readCappedBody(response, MAX_BYTES).catch(() => undefined);
  if (body === undefined) return { url, http_status: response.status, problem: `${url}: the body could not be read` };
  if (body === 'too_large') return { url, http_status: response.status, problem: `${url}: over ${MAX_BYTES} bytes` };
  const parsed = parseJsonStrict(body.toString('utf8'), { maxBytes: MAX_BYTES });
  if (!parsed.ok) return { url, http_status: response.status, problem: `${url}: not strict JSON` };
  return { url, http_status: response.status, body: parsed.value };
}

/** RFC 9728 §3: `/.well-known/oauth-protected-resource` with the resource's path appended. */
export function protectedResourceUrl(agentUrl: string): string {
  const url = new URL(agentUrl);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}

/** RFC 8414 §3: `/.well-known/oauth-authorization-server` inserted before the issuer's path. */
export function authServerMetadataUrl(issuer: string): string | undefined {
  try {
    const url = new URL(issuer);
    const path = url.pathname === '/' ? '' : url.pathname.replace(/\/+$/, '');
    return `${url.origin}/.well-known/oauth-authorization-server${path}`;
  } catch {
    return undefined;
  }
}

/** A named failure of a runner task: one failed validation with the storyboard's error code. */
export function failure(code: string, description: string, expected: unknown, actual: unknown): ValidationOutcome {
  return { check: code, description, verdict: 'failed', severity: 'required', json_pointer: null, expected, actual };
}

export function passing(check: string, description: string, expected: unknown, actual: unknown): ValidationOutcome {
  return { check, description, verdict: 'passed', severity: 'required', json_pointer: null, expected, actual };
}

/** What `fetch_brand_jwks` found: the brand.json, the chosen agents[] entry and its JWKS. */
export interface BrandKeys {
  brandJsonUrl?: string;
  jwksUri?: string;
  jwks?: { keys: JsonObject[] };
  /** The failure code and sentence when no JWKS could be had; `hint`: how to get past it (a local run). */
  failed?: { code: string; detail: string; hint?: string };
}

/**
 * What to do when a local agent (plain http, or a loopback host) names no brand.json and the run
 * was given none: the schemas allow only an https `identity.brand_json_url`, so `adcp serve`
 * publishes one only under an https `--public-url` (decision 0215); a run can also be given one
 * with `--brand-json`, and `--allow-http` lets it be fetched off the agent's origin (decision 0227).
 * Undefined for any other agent.
 */
export function localBrandJsonHint(agentUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(agentUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && !isLoopbackHost(url.hostname)) return undefined;
  return (
    'to grade a local agent: adcp serve publishes a brand.json only under an https --public-url ' +
    '(identity.brand_json_url is https only), so run it behind TLS and grade that https URL; or give ' +
    "--brand-json URL, a brand.json whose agents[] entry has this agent's url and a jwks_uri " +
    `(adcp serve's: ${url.origin}/.well-known/jwks.json), with --allow-http when that brand.json is ` +
    "http or local off the agent's origin"
  );
}

/**
 * `fetch_brand_jwks` (webhook-emission.yaml, signing_keys_published): brand.json from the
 * agent's `identity.brand_json_url` (or the operator's), then an `agents[]` entry's `jwks_uri`
 * answering 200 with a JWKS. The entry whose `url` is the agent URL is tried first.
 */
export async function fetchBrandJwks(
  capabilities: JsonObject,
  operatorBrandJson: string | undefined,
  rules: FetchRules,
): Promise<BrandKeys> {
  const identity = isJsonObject(capabilities['identity']) ? capabilities['identity'] : {};
  const declared = typeof identity['brand_json_url'] === 'string' ? identity['brand_json_url'] : undefined;
  const brandJsonUrl = operatorBrandJson ?? declared;
  if (brandJsonUrl === undefined) {
    const hint = localBrandJsonHint(rules.agentUrl);
    return {
      failed: {
        code: 'brand_json_unreachable',
        detail:
          "the agent's get_adcp_capabilities declares no identity.brand_json_url (and the run was given no --brand-json)",
        ...(hint === undefined ? {} : { hint }),
      },
    };
  }
  const brand = await fetchJson(brandJsonUrl, rules);
  if (brand.problem !== undefined && brand.http_status === undefined)
    return { brandJsonUrl, failed: { code: 'brand_json_unreachable', detail: brand.problem } };
  if (brand.http_status !== 200)
    return {
      brandJsonUrl,
      failed: { code: 'brand_json_unreachable', detail: `${brandJsonUrl} answered HTTP ${brand.http_status}` },
    };
  if (!isJsonObject(brand.body))
    return {
      brandJsonUrl,
      failed: { code: 'brand_json_malformed', detail: brand.problem ?? `${brandJsonUrl} is not a JSON object` },
    };
  const house = isJsonObject(brand.body['house']) ? brand.body['house'] : {};
  const entries = [brand.body['agents'], house['agents']].flatMap((list) =>
    Array.isArray(list) ? list.filter(isJsonObject) : [],
  );
  entries.sort((a, b) => Number(b['url'] === rules.agentUrl) - Number(a['url'] === rules.agentUrl));
  const withJwks = entries.filter((e) => typeof e['jwks_uri'] === 'string');
  if (withJwks.length === 0)
    return {
      brandJsonUrl,
      failed: { code: 'agents_jwks_uri_missing', detail: `no agents[] entry of ${brandJsonUrl} has a jwks_uri` },
    };
  const problems: string[] = [];
  for (const entry of withJwks) {
    const jwksUri = entry['jwks_uri'] as string;
    const got = await fetchJson(jwksUri, rules);
    if (got.http_status === 200 && isJsonObject(got.body) && Array.isArray(got.body['keys']))
      return { brandJsonUrl, jwksUri, jwks: { keys: got.body['keys'].filter(isJsonObject) } };
    problems.push(got.problem ?? `${jwksUri} answered HTTP ${got.http_status} without a { keys } JWKS`);
  }
  return { brandJsonUrl, failed: { code: 'agents_jwks_uri_missing', detail: problems.join('; ') } };
}

/** The webhook-valid key purposes (webhook-emission.yaml: request-signing, or deprecated webhook-signing). */
const WEBHOOK_PURPOSES = new Set(['request-signing', 'webhook-signing']);

/** `assert_jwks_purpose`: at least one non-revoked key with a webhook-valid `adcp_use`. */
export function assertJwksPurpose(keys: BrandKeys): ValidationOutcome {
  const description =
    'at least one JWK carries adcp_use "request-signing" (or deprecated "webhook-signing") and is not revoked';
  const expected = 'adcp_use in [request-signing, webhook-signing], not revoked';
  if (keys.jwks === undefined || keys.jwks.keys.length === 0)
    return {
      ...failure(
        'webhook_signing_keys_unpublished',
        description,
        expected,
        keys.failed === undefined ? 'an empty JWKS' : `no JWKS (${keys.failed.code}: ${keys.failed.detail})`,
      ),
      ...(keys.failed?.hint === undefined ? {} : { note: keys.failed.hint }),
    };
  const valid = keys.jwks.keys.filter((k) => typeof k['adcp_use'] === 'string' && WEBHOOK_PURPOSES.has(k['adcp_use']));
  if (valid.length === 0)
    return failure(
      'webhook_signing_keys_wrong_purpose',
      description,
      expected,
      keys.jwks.keys.map((k) => ({ kid: k['kid'], adcp_use: k['adcp_use'] ?? '(absent)' })),
    );
  const live = valid.filter((k) => k['revoked'] !== true && k['status'] !== 'revoked');
  if (live.length === 0)
    return failure(
      'webhook_signing_keys_all_revoked',
      description,
      expected,
      valid.map((k) => ({ kid: k['kid'], adcp_use: k['adcp_use'], revoked: true })),
    );
  return passing(
    'assert_jwks_purpose',
    description,
    expected,
    live.map((k) => ({ kid: k['kid'], adcp_use: k['adcp_use'] })),
  );
}
