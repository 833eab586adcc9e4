import { timingSafeEqual } from 'node:crypto';
import { digestOf } from './one-shot-digest.js';
import { parseDictionary, type DictionaryMember } from './structured-fields.js';
import { decodeBase64Strict, decodeEitherBase64 } from './base64.js';

const ALGORITHMS: Readonly<Record<string, string>> = { 'sha-256': 'sha256', 'sha-512': 'sha512' };

/** `Content-Digest` header value for `body` (RFC 9530, SHA-256, standard padded Base64 as the vectors use). */
export function contentDigest(body: Uint8Array | string): string {
  return `sha-256=:${digestOf('sha256', body).toString('base64')}:`;
}

/**
 * Whether `header` carries a SHA-256 or SHA-512 digest equal to the digest of `body`. Every
 * supported algorithm present must match; unknown algorithms are ignored; none supported fails.
 * `alphabet` `base64` accepts only RFC 8941 sf-binary (the 3.2 request profile); the default
 * also accepts the legacy unpadded Base64URL, never a mix.
 */
export function contentDigestMatches(
  header: string | undefined,
  body: Uint8Array | string,
  alphabet: 'either' | 'base64' = 'either',
): boolean {
  return header !== undefined && contentDigestDictionaryMatches(parseDictionary(header), body, alphabet);
}

/** `contentDigestMatches` over a header the caller has already parsed (`undefined`: malformed). */
export function contentDigestDictionaryMatches(
  dict: Map<string, DictionaryMember> | undefined,
  body: Uint8Array | string,
  alphabet: 'either' | 'base64' = 'either',
): boolean {
  if (dict === undefined) return false;
  let checked = 0;
  for (const [name, member] of dict) {
    const algorithm = ALGORITHMS[name];
    if (algorithm === undefined) continue;
    if (member.kind !== 'item' || member.value.type !== 'binary') return false;
    const text = member.value.value;
    const actual = digestOf(algorithm, body);
    checked += 1;
    // A claim spelled exactly as the digest encodes (what signers send) matches without decoding;
    // any other spelling is decoded strictly and compared. (The digest of a body is no secret.)
    if (alphabet === 'either' && text === actual.toString('base64url')) continue;
    if (text === actual.toString('base64')) continue;
    const claimed = alphabet === 'base64' ? decodeBase64Strict(text) : decodeEitherBase64(text);
    if (claimed === undefined || claimed.length !== actual.length || !timingSafeEqual(claimed, actual)) return false;
  }
  return checked > 0;
}
