import { OAUTH_PREFIX, type AdcpAuthOptions, type AuthInfo, type OAuthResourceOptions } from './auth-options.js';
import { createStaticTokens, principalProblem, type StaticTokens } from './static-tokens.js';

/** The endpoint a request is for: its URL (the OAuth resource) and the server's origin. */
export interface EndpointResource {
  url: string;
  origin: string;
}

export type BearerOutcome =
  | { ok: true; principal: string; via: 'token' | 'oauth' }
  | { ok: true; principal: undefined }
  | {
      ok: false;
      status: 401 | 403;
      error: 'invalid_token' | 'insufficient_scope';
      /** Fixed wording: never the token, never a verifier's own message. */
      description: string;
    };

export interface BearerAuth {
  /**
   * The caller's principal from `Authorization` (every field line of it: several are refused, never
   * the first taken), `principal: undefined` without one, or the refusal.
   */
  check(authorization: string | readonly string[] | undefined, resource: EndpointResource): Promise<BearerOutcome>;
  readonly oauth: OAuthResourceOptions | undefined;
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

const refuse = (description: string): BearerOutcome => ({
  ok: false,
  status: 401,
  error: 'invalid_token',
  description,
});

/** A valid token without a scope the endpoint requires: 403, as RFC 6750 section 3.1 says. */
const insufficientScope: BearerOutcome = {
  ok: false,
  status: 403,
  error: 'insufficient_scope',
  description: 'The access token lacks a required scope',
};

/** A URL string without fragment and one trailing slash, for audience comparison. */
function comparable(value: unknown): string | undefined {
  if (typeof value !== 'string' && !(value instanceof URL)) return undefined;
  const text = String(value);
  const hash = text.indexOf('#');
  return (hash === -1 ? text : text.slice(0, hash)).replace(/\/$/, '');
}

/** The audiences a verified token names: `resource`, and `extra.aud` (a JWT `aud`, string or array). */
function audiencesOf(info: AuthInfo): string[] {
  const aud = info.extra?.['aud'];
  const values = [info.resource, ...(Array.isArray(aud) ? aud : [aud])];
  return values.map(comparable).filter((v): v is string => v !== undefined);
}

/** `oauth:` and the token's subject (else its client): typed apart from token and key principals. */
function defaultPrincipal(info: AuthInfo): string {
  const sub = info.extra?.['sub'];
  return `${OAUTH_PREFIX}${typeof sub === 'string' ? sub : info.clientId}`;
}

function isInsufficientScope(error: unknown): boolean {
  const code =
    (error as { errorCode?: unknown; code?: unknown } | null)?.errorCode ?? (error as { code?: unknown } | null)?.code;
  return code === 'insufficient_scope';
}

/**
 * Checks `Authorization: Bearer <token>` (RFC 6750 section 2.1) against the static tokens, then the
 * OAuth verifier: an OAuth token must be unexpired (`expiresAt` required), issued for this endpoint
 * (its URL, the server's origin or `oauth.audiences`: MCP authorization, "Token Handling") and carry
 * `requiredScopes`. Refuses a bad configuration with a TypeError.
 */
export function createBearerAuth(options: AdcpAuthOptions): BearerAuth {
  const tokens: StaticTokens | undefined =
    options.tokens === undefined ? undefined : createStaticTokens(options.tokens);
  const oauth = options.oauth;
  if (oauth !== undefined) checkOAuthOptions(oauth);
  if (tokens === undefined && oauth === undefined) throw new TypeError('auth: pass tokens, oauth or both');
  const extraAudiences = (oauth?.audiences ?? []).map(comparable);

  const verifyOAuth = async (settings: OAuthResourceOptions, token: string, resource: EndpointResource) => {
    let info: AuthInfo;
    try {
      info = await settings.verifier.verifyAccessToken(token);
    } catch (error) {
      if (isInsufficientScope(error)) {
        return insufficientScope;
      }
      return refuse('The access token is not valid');
    }
    const now = (settings.now ?? Date.now)();
    if (typeof info?.expiresAt !== 'number' || !Number.isFinite(info.expiresAt))
      return refuse('The access token has no expiry');
    if (info.expiresAt * 1000 <= now) return refuse('The access token expired');
    const accepted = new Set([comparable(resource.url), comparable(resource.origin), ...extraAudiences]);
    if (!audiencesOf(info).some((aud) => accepted.has(aud)))
      return refuse('The access token was not issued for this resource');
    const scopes = Array.isArray(info.scopes) ? info.scopes : [];
    if (!(settings.requiredScopes ?? []).every((scope) => scopes.includes(scope))) {
      return insufficientScope;
    }
    let principal: unknown;
    try {
      principal = (settings.principal ?? defaultPrincipal)(info);
    } catch {
      principal = undefined;
    }
    if (principalProblem(principal, OAUTH_PREFIX) !== undefined) {
      return refuse('The access token names no usable principal');
    }
    return { ok: true, principal: principal as string, via: 'oauth' } as const;
  };

  return {
    oauth,
    async check(lines, resource) {
      // Two credentials are no credential: refused, whichever of them is valid (docs/decisions/0126).
      if (typeof lines !== 'string' && lines !== undefined && lines.length > 1) {
        return refuse('The request carries more than one Authorization header');
      }
      const authorization = typeof lines === 'string' ? lines : lines?.[0];
      if (authorization === undefined) return { ok: true, principal: undefined };
      const token = BEARER.exec(authorization)?.[1];
      if (token === undefined) return refuse("Send credentials as 'Authorization: Bearer <token>'");
      const principal = tokens?.principalOf(token);
      if (principal !== undefined) return { ok: true, principal, via: 'token' };
      if (oauth === undefined) return refuse('The token is not valid');
      return verifyOAuth(oauth, token, resource);
    },
  };
}

function checkOAuthOptions(oauth: OAuthResourceOptions): void {
  if (typeof oauth.verifier?.verifyAccessToken !== 'function') {
    throw new TypeError('auth.oauth: pass verifier: { verifyAccessToken(token) } (jwtVerifier() builds one)');
  }
  if (!Array.isArray(oauth.authorizationServers) || oauth.authorizationServers.length === 0) {
    throw new TypeError('auth.oauth: pass authorizationServers: [issuer URL, ...]');
  }
  for (const issuer of oauth.authorizationServers) {
    let url: URL | undefined;
    try {
      url = new URL(issuer);
    } catch {
      url = undefined;
    }
    const loopback = url !== undefined && /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(url.hostname);
    const secure = url?.protocol === 'https:' || (url?.protocol === 'http:' && loopback);
    if (url === undefined || !secure || url.hash !== '' || url.search !== '') {
      throw new TypeError(
        `auth.oauth: authorization server '${String(issuer)}' must be an https issuer URL (http only on loopback), without query or fragment`,
      );
    }
  }
}
