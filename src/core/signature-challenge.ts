import { sanitizeSellerText } from './sanitize.js';

/** Longest `WWW-Authenticate` value read; a longer one is not parsed (it is seller-controlled). */
const MAX_HEADER_CHARS = 4096;
/** The request-signing taxonomy's codes (security.md, "Transport error taxonomy") all look like this. */
const CODE = /^request_[a-z0-9_]{1,80}$/;

/**
 * The `error` code of the `Signature` challenge in a `WWW-Authenticate` value (RFC 9110 section
 * 11.6.1 syntax; AdCP's `Signature error="request_signature_required"`), or `undefined` when
 * there is no such challenge or its code is not a request-signing code. Other challenges in the
 * same value (`Bearer realm="..."`) are skipped; nothing else of the value is returned.
 */
export function signatureChallengeError(header: string | null | undefined): string | undefined {
  const code = challengeParam(header, 'signature', 'error');
  return code !== undefined && CODE.test(code) ? code : undefined;
}

/**
 * The `error` (RFC 6750 section 3.1: `invalid_token`, `invalid_request`, `insufficient_scope`)
 * and `error_description` of the `Bearer` challenge in a `WWW-Authenticate` value, or `undefined`
 * when there is no Bearer challenge with an error. The description is seller text: sanitised.
 */
export function bearerChallengeError(
  header: string | null | undefined,
): { error: string; description?: string } | undefined {
  const error = challengeParam(header, 'bearer', 'error');
  if (error === undefined || !/^[a-z_]{1,40}$/.test(error)) return undefined;
  const said = challengeParam(header, 'bearer', 'error_description');
  const description = said === undefined ? undefined : sanitizeSellerText(said, { maxLength: 200 });
  return description === undefined || description === '' ? { error } : { error, description };
}

/** One parameter of one scheme's challenge in a `WWW-Authenticate` value (RFC 9110 section 11.6.1). */
function challengeParam(header: string | null | undefined, wanted: string, param: string): string | undefined {
  if (header === null || header === undefined || header.length > MAX_HEADER_CHARS) return undefined;
  let scheme = '';
  for (const item of splitOutsideQuotes(header)) {
    const head = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(.*)$/s.exec(item);
    if (head === null) continue;
    const name = head[1] ?? '';
    const rest = head[2] ?? '';
    let pair = item;
    if (rest === '') {
      scheme = name.toLowerCase(); // a scheme alone
      continue;
    }
    // `token SP rest` starts a challenge (a parameter has `=` right after its name).
    if (/^\s/.test(rest) && !/^\s*=/.test(rest)) {
      scheme = name.toLowerCase();
      pair = rest.trim();
    }
    if (scheme !== wanted) continue;
    const match = /^([a-z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([!#$%&'*+.^_`|~0-9A-Za-z-]+))$/is.exec(pair.trim());
    if (match === null || (match[1] ?? '').toLowerCase() !== param) continue;
    return (match[2] ?? match[3] ?? '').replace(/\\(.)/g, '$1');
  }
  return undefined;
}

/** Comma-separated items of a header value, commas inside quoted strings kept; items trimmed, empty ones dropped. */
function splitOutsideQuotes(value: string): string[] {
  const items: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string;
    if (quoted && c === '\\' && i + 1 < value.length) {
      current += c + (value[i + 1] as string);
      i++;
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === ',' && !quoted) {
      items.push(current.trim());
      current = '';
      continue;
    }
    current += c;
  }
  items.push(current.trim());
  return items.filter((item) => item !== '');
}

/**
 * What a refused HTTP answer's `WWW-Authenticate` says: for a 401 carrying a Signature challenge,
 * a message suffix naming the code and the `signatureError` field of `AdcpWireError`; for a 401
 * or 403 carrying a Bearer challenge with an error, that the token was refused (the seller's
 * error and description) and the `tokenError` field.
 */
export function authRefusal(
  status: number,
  header: string | null | undefined,
): { note: string; fields: { signatureError?: string; tokenError?: string } } {
  const code = status === 401 ? signatureChallengeError(header) : undefined;
  if (code !== undefined) return { note: ` (request signature refused: ${code})`, fields: { signatureError: code } };
  const bearer = status === 401 || status === 403 ? bearerChallengeError(header) : undefined;
  if (bearer === undefined) return { note: '', fields: {} };
  const said = bearer.description === undefined ? '' : `: ${bearer.description}`;
  return { note: ` (the agent refused the token: ${bearer.error}${said})`, fields: { tokenError: bearer.error } };
}
