import type { JsonObject } from '../../core/types.js';

/**
 * A validated access token, as the MCP SDK's `AuthInfo` describes it (the same shape, declared
 * here: the SDK's `server/auth/provider` declarations import `express`, whose types an app
 * compiled with `skipLibCheck: false` would then need although it never uses Express).
 */
export interface AuthInfo {
  /** The access token. */
  token: string;
  /** The client id the token was issued to. */
  clientId: string;
  /** The token's scopes. */
  scopes: string[];
  /** Expiry, in seconds since the epoch. */
  expiresAt?: number;
  /** The RFC 8707 resource the token is valid for. */
  resource?: URL;
  /** Anything else the verifier read from the token (`sub`, `aud`, ...). */
  extra?: Record<string, unknown>;
}

/** Checks an access token (the MCP SDK's `OAuthTokenVerifier` shape: an SDK verifier fits). */
export interface OAuthTokenVerifier {
  /** Resolves with what the token says, or rejects for a token that is not valid. */
  verifyAccessToken(token: string): Promise<AuthInfo>;
}

/**
 * `createAdcpServer({ auth })`: who may call the server, and as whom. Callers present a bearer
 * token (`Authorization: Bearer <token>`, RFC 6750): a static API key from `tokens`, or an OAuth 2.1
 * access token checked by `oauth.verifier`. Without credentials a caller is `anonymous@<address>`
 * and may call only `publicTools` (discovery); every other operation answers HTTP 401 with
 * `WWW-Authenticate`. Credentials that are presented and fail are refused with 401 on every request.
 */
export interface AdcpAuthOptions {
  /**
   * Static credentials: token -> principal (`{ 'sk_live_...': 'acme' }`). Tokens are RFC 6750
   * b64token strings of at least 16 characters; they are compared by SHA-256 digest, never logged
   * and never echoed. Principals must not start with `anonymous@`, `signing-key:` or `oauth:`.
   */
  tokens?: Readonly<Record<string, string>> | ReadonlyMap<string, string>;
  /** OAuth 2.1 bearer tokens as the MCP authorization spec describes (RFC 9728 metadata, audience, expiry). */
  oauth?: OAuthResourceOptions;
  /**
   * Tools an anonymous caller may call. Default: `get_adcp_capabilities`, `list_creative_formats`
   * and `get_products` (security.md, "Low-Risk Operations (Discovery)"; the `security` storyboard).
   * Protocol discovery (MCP `initialize`, `tools/list`, the cards) is always open.
   */
  publicTools?: string[];
}

export interface OAuthResourceOptions {
  /** Issuer URLs of the authorization servers (RFC 9728 `authorization_servers`). https, or http on loopback. */
  authorizationServers: string[];
  /**
   * Checks an access token and describes it (the MCP SDK's `OAuthTokenVerifier`; `jwtVerifier()`
   * builds one for JWTs signed by a JWKS). Throw (or reject) for a token that is not valid. The
   * answer must carry `expiresAt` (seconds) and the token's audience, as `resource` or as
   * `extra.aud` (a string or array): a token without either is refused.
   */
  verifier: OAuthTokenVerifier;
  /**
   * The principal of a verified token. Default: `oauth:` and `extra.sub` when a string, else
   * `oauth:` and `clientId`. Yours may map tokens to your accounts; it must not return
   * `anonymous@...` or `signing-key:...`.
   */
  principal?: (info: AuthInfo) => string;
  /** Scopes every call needs; a token without them is refused with 403 `insufficient_scope`. */
  requiredScopes?: string[];
  /** RFC 9728 `scopes_supported`. Default `requiredScopes`. */
  scopesSupported?: string[];
  /**
   * Further audiences accepted besides the endpoint's own URL (`https://seller.example/mcp`) and
   * the server's origin (an API identifier your authorization server puts in `aud`).
   */
  audiences?: string[];
  /** Extra members of the protected-resource metadata (`resource_name`, `resource_documentation`, ...). */
  metadata?: JsonObject;
  /** Clock in ms for the expiry check. Default `Date.now`. */
  now?: () => number;
}

/** The anonymous prefix every unauthenticated principal carries (see `anonymousPrincipal`). */
export const ANONYMOUS_PREFIX = 'anonymous@';
/** The prefix of a principal a request signature alone established: `signing-key:<keyid>`. */
export const SIGNING_KEY_PREFIX = 'signing-key:';
/** The prefix of an OAuth access token's default principal: `oauth:<sub>` (else `oauth:<clientId>`). */
export const OAUTH_PREFIX = 'oauth:';
/**
 * A principal is typed by how it was authenticated: these prefixes belong to the kinds the library
 * names itself, and a static token principal takes none of them, so a signing key `alice`, an
 * OAuth subject `alice` and the token user `alice` are three principals (issue 36.3).
 */
export const PRINCIPAL_KIND_PREFIXES = [ANONYMOUS_PREFIX, SIGNING_KEY_PREFIX, OAUTH_PREFIX] as const;

/** True for the principal of a caller without credentials. */
export function isAnonymousPrincipal(principal: string): boolean {
  return principal.startsWith(ANONYMOUS_PREFIX);
}

/** The default tools an anonymous caller may call. */
export const DEFAULT_PUBLIC_TOOLS = ['get_adcp_capabilities', 'list_creative_formats', 'get_products'] as const;
