/**
 * Seller-provided URLs a client may open or fetch: FilePart `url`/`uri`, `auth-required`
 * `challenge_url`, `setup_url`, `policy_url` (a2a-response-extraction.md, "FilePart URI
 * Validation" and "Auth Challenge URL Validation"; transport-errors.md, "URL validation").
 */

export type UrlRejection = 'not_a_string' | 'too_long' | 'invalid_url' | 'not_https' | 'userinfo' | 'host_not_allowed';

export type UrlCheck =
  | {
      ok: true;
      /** The normalised URL, redirect-style query parameters and fragment removed. */
      url: string;
      /** Names of the query parameters that were dropped. */
      dropped: string[];
    }
  | { ok: false; reason: UrlRejection };

export interface UrlAllowList {
  /** Host names (optionally `host:port`) the URL may point at; matched exactly after normalisation. */
  allowedHosts?: readonly string[];
  /** Origins (`https://host[:port]`) the URL may point at. */
  allowedOrigins?: readonly string[];
  /** Longest accepted URL in UTF-16 units. Default 2048. */
  maxLength?: number;
}

const REDIRECT_PARAMS = new Set([
  'next',
  'continue',
  'goto',
  'dest',
  'destination',
  'target',
  'forward',
  'url',
  'uri',
  'state_url',
  'relaystate',
  'success_url',
  'failure_url',
  'cancel_url',
  'back',
  'back_url',
  'to',
]);
const REDIRECT_WORDS = /redirect|return|callback|continue/;

/** True when a query parameter name can steer the user agent somewhere else after the page. */
export function isRedirectParam(name: string): boolean {
  const n = name.toLowerCase().replace(/-/g, '_');
  return REDIRECT_PARAMS.has(n) || REDIRECT_WORDS.test(n);
}

/**
 * Checks a seller URL: `https` only, no userinfo, no control characters or backslashes, host in
 * the allow-list (lowercased, IDNA to punycode, one trailing dot ignored, non-default port only
 * when listed). On success returns the normalised URL without redirect-style query parameters
 * (`redirect_uri`, `return_url`, `next`, ... any case) and without fragment. Never throws on
 * seller input; throws `TypeError` when no allow-list is given.
 */
export function validateSellerUrl(url: unknown, allow: UrlAllowList): UrlCheck {
  if (allow.allowedHosts === undefined && allow.allowedOrigins === undefined) {
    throw new TypeError("validateSellerUrl: pass allowedHosts or allowedOrigins (the seller's known hosts)");
  }
  if (typeof url !== 'string') return { ok: false, reason: 'not_a_string' };
  if (url.length > (allow.maxLength ?? 2048)) return { ok: false, reason: 'too_long' };
  // The WHATWG parser silently strips tabs/newlines and reads "\" as "/": refuse instead.
  // oxlint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u0020\u007f-\u009f\\]/.test(url)) return { ok: false, reason: 'invalid_url' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'invalid_url' };
  }
  if (parsed.protocol !== 'https:') return { ok: false, reason: 'not_https' };
  if (parsed.username !== '' || parsed.password !== '' || authorityOf(url).includes('@')) {
    return { ok: false, reason: 'userinfo' };
  }
  if (!isAllowed(parsed, allow)) return { ok: false, reason: 'host_not_allowed' };

  const dropped: string[] = [];
  for (const name of [...parsed.searchParams.keys()]) {
    if (isRedirectParam(name) && !dropped.includes(name)) dropped.push(name);
  }
  for (const name of dropped) parsed.searchParams.delete(name);
  parsed.hash = '';
  return { ok: true, url: parsed.href, dropped };
}

function authorityOf(url: string): string {
  const start = url.indexOf('//');
  if (start === -1) return '';
  const rest = url.slice(start + 2);
  const end = rest.search(/[/?#]/);
  return end === -1 ? rest : rest.slice(0, end);
}

function stripDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

function isAllowed(parsed: URL, allow: UrlAllowList): boolean {
  const host = stripDot(parsed.hostname);
  const port = parsed.port; // '' for 443
  for (const entry of allow.allowedHosts ?? []) {
    const normal = normaliseAuthority(`https://${entry}`);
    if (normal !== null && normal.host === host && normal.port === port) return true;
  }
  for (const entry of allow.allowedOrigins ?? []) {
    const normal = normaliseAuthority(entry);
    if (normal !== null && normal.https && normal.host === host && normal.port === port) return true;
  }
  return false;
}

function normaliseAuthority(text: string): { host: string; port: string; https: boolean } | null {
  try {
    const u = new URL(text);
    if (u.username !== '' || u.password !== '') return null;
    return { host: stripDot(u.hostname), port: u.port, https: u.protocol === 'https:' };
  } catch {
    return null;
  }
}

/** Outcome of {@link checkFilePartRaw}. */
export type RawCheck =
  { ok: true; bytes: number } | { ok: false; reason: 'not_a_string' | 'invalid_base64' | 'too_large' };

/**
 * Checks a FilePart `raw` (base64 or base64url) against `maxBytes` decoded bytes without
 * decoding it (a2a-response-extraction.md: "enforce a max decoded size before accepting").
 */
export function checkFilePartRaw(raw: unknown, maxBytes: number): RawCheck {
  if (typeof raw !== 'string') return { ok: false, reason: 'not_a_string' };
  // Compare the cheap upper bound first so a huge string is refused before the regex runs.
  if (Math.floor(raw.length / 4) * 3 - 2 > maxBytes) return { ok: false, reason: 'too_large' };
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(raw)) return { ok: false, reason: 'invalid_base64' };
  const padding = raw.endsWith('==') ? 2 : raw.endsWith('=') ? 1 : 0;
  const body = raw.length - padding;
  if (body % 4 === 1 || (padding > 0 && raw.length % 4 !== 0)) return { ok: false, reason: 'invalid_base64' };
  const bytes = Math.floor((body * 3) / 4);
  return bytes > maxBytes ? { ok: false, reason: 'too_large' } : { ok: true, bytes };
}
