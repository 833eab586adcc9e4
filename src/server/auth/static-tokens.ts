import { createHash } from 'node:crypto';
import { PRINCIPAL_KIND_PREFIXES } from './auth-options.js';

/** RFC 6750 `b64token`: the characters a bearer token may carry. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/** Shortest static token accepted: a guessable API key is no credential. */
export const MIN_TOKEN_LENGTH = 16;
const MAX_PRINCIPAL_LENGTH = 256;

/** Looks static bearer tokens up by SHA-256 digest; the tokens themselves are not kept. */
export interface StaticTokens {
  /** The principal of `token`, or undefined. */
  principalOf(token: string): string | undefined;
  readonly size: number;
}

const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest('base64');

/**
 * Why a principal name is refused (undefined when it is fine): among others, one that takes the
 * prefix of another kind of principal (`PRINCIPAL_KIND_PREFIXES`) than `ownPrefix`, its own.
 */
export function principalProblem(principal: unknown, ownPrefix?: string): string | undefined {
  if (typeof principal !== 'string' || principal === '') return 'a principal must be a non-empty string';
  if (principal.length > MAX_PRINCIPAL_LENGTH) return `a principal is at most ${MAX_PRINCIPAL_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(principal)) return 'a principal must not contain control characters';
  for (const prefix of PRINCIPAL_KIND_PREFIXES) {
    if (prefix !== ownPrefix && principal.startsWith(prefix)) return `a principal must not start with '${prefix}'`;
  }
  return undefined;
}

/** Why a static token is refused (undefined when it is fine). Never quotes the token. */
export function tokenProblem(token: unknown): string | undefined {
  if (typeof token !== 'string' || !B64TOKEN.test(token)) {
    return 'a token must be an RFC 6750 bearer token (letters, digits and -._~+/ with optional trailing =)';
  }
  if (token.length < MIN_TOKEN_LENGTH) return `a token must be at least ${MIN_TOKEN_LENGTH} characters`;
  return undefined;
}

/**
 * Builds the lookup of `auth.tokens`, refusing a bad entry with a TypeError that names its
 * position, never its token. The lookup compares SHA-256 digests in a Map: the time it takes
 * depends on the digest of what the caller sent, which tells a caller nothing about a valid token.
 */
export function createStaticTokens(
  tokens: Readonly<Record<string, string>> | ReadonlyMap<string, string>,
): StaticTokens {
  const entries = tokens instanceof Map ? [...tokens] : Object.entries(tokens);
  const byDigest = new Map<string, string>();
  for (const [index, [token, principal]] of entries.entries()) {
    // Entries are named by position: a token and its principal swapped by mistake stay unprinted.
    const problem = tokenProblem(token) ?? principalProblem(principal);
    if (problem !== undefined) throw new TypeError(`auth.tokens: entry ${index + 1}: ${problem}`);
    byDigest.set(digest(token), principal);
  }
  return {
    size: byDigest.size,
    principalOf: (token) => byDigest.get(digest(token)),
  };
}
