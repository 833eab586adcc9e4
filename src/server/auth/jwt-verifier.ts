import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import type { AuthInfo, OAuthTokenVerifier } from './auth-options.js';

export interface JwtVerifierOptions {
  /** The authorization server's issuer (`iss` must equal it). */
  issuer: string;
  /** Its signing keys. One of `jwks` or `jwksUrl`. */
  jwks?: JSONWebKeySet;
  /** Where its signing keys are published (fetched with a timeout and cached; https, or http on loopback). */
  jwksUrl?: string;
  /** Signature algorithms accepted. Default RS256, PS256, ES256, EdDSA (never `none` or HMAC). */
  algorithms?: string[];
  /** Clock skew tolerated on `nbf`, in seconds. Default 30 (`exp` is checked by the server, without). */
  clockToleranceSeconds?: number;
  /** Clock in ms. Default `Date.now`. */
  now?: () => number;
}

const DEFAULT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];

/** The AuthInfo of a verified (or verified-but-expired) claims set. */
function describe(token: string, payload: JWTPayload): AuthInfo {
  const scope = typeof payload['scope'] === 'string' ? payload['scope'] : '';
  const clientId = [payload['client_id'], payload['azp'], payload.sub].find((v): v is string => typeof v === 'string');
  let resource: URL | undefined;
  if (typeof payload.aud === 'string') {
    try {
      resource = new URL(payload.aud);
    } catch {
      resource = undefined;
    }
  }
  return {
    token,
    clientId: clientId ?? '',
    scopes: scope.split(' ').filter((s) => s !== ''),
    ...(typeof payload.exp === 'number' ? { expiresAt: payload.exp } : {}),
    ...(resource === undefined ? {} : { resource }),
    extra: { sub: payload.sub, iss: payload.iss, aud: payload.aud },
  };
}

/**
 * An OAuth token verifier for JWT access tokens (RFC 9068) signed by the authorization server's
 * JWKS: checks the signature, `iss`, `exp` (required) and `nbf`, and reports `aud`, `sub`, `scope`
 * for `createAdcpServer({ auth: { oauth } })` to check audience and scopes. An expired but
 * otherwise valid token is reported with its past `expiresAt`, so the caller hears "expired".
 */
export function jwtVerifier(options: JwtVerifierOptions): OAuthTokenVerifier {
  if ((options.jwks === undefined) === (options.jwksUrl === undefined)) {
    throw new TypeError('jwtVerifier: pass exactly one of jwks or jwksUrl');
  }
  if (typeof options.issuer !== 'string' || options.issuer === '') throw new TypeError('jwtVerifier: pass issuer');
  let keys: ReturnType<typeof createLocalJWKSet> | ReturnType<typeof createRemoteJWKSet>;
  if (options.jwksUrl !== undefined) {
    const url = new URL(options.jwksUrl);
    const loopback = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(url.hostname);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
      throw new TypeError('jwtVerifier: jwksUrl must be https (http only on loopback)');
    }
    keys = createRemoteJWKSet(url, { timeoutDuration: 5_000, cooldownDuration: 30_000 });
  } else {
    keys = createLocalJWKSet(options.jwks as JSONWebKeySet);
  }
  const algorithms = options.algorithms ?? DEFAULT_ALGORITHMS;
  if (algorithms.some((alg) => alg === 'none' || alg.startsWith('HS'))) {
    throw new TypeError('jwtVerifier: algorithms must be asymmetric (no none, no HS*)');
  }
  const now = options.now ?? Date.now;
  return {
    async verifyAccessToken(token) {
      try {
        const { payload } = await jwtVerify(token, keys, {
          issuer: options.issuer,
          algorithms,
          requiredClaims: ['exp'],
          clockTolerance: options.clockToleranceSeconds ?? 30,
          currentDate: new Date(now()),
        });
        return describe(token, payload);
      } catch (error) {
        // jose authenticates the token before it checks claims: an expired token is genuine.
        if (error instanceof errors.JWTExpired && error.payload.iss === options.issuer) {
          return describe(token, error.payload);
        }
        throw error;
      }
    },
  };
}
