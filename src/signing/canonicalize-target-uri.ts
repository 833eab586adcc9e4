import { domainToASCII } from 'node:url';
import { isIPv6 } from 'node:net';

/**
 * AdCP `@target-uri` and `@authority` canonicalization (security.md, "AdCP RFC 9421 profile";
 * vectors in request-signing/canonicalization.json), shared by signer and verifier:
 * 1 lowercase scheme; 2 host lowercased, UTS-46 to ASCII, one trailing root dot removed, IPv6
 * bracketed and lowercased, zone ids refused; 3 userinfo stripped, empty host refused; 4 default
 * port removed; 5 empty path to `/`, dot segments removed (consecutive slashes kept); 6 `%xx`
 * uppercased, unreserved characters decoded; 7 query kept byte for byte; 8 fragment dropped.
 */
export type CanonicalTarget =
  { ok: true; targetUri: string; authority: string; scheme: string } | { ok: false; reason: string };

const URL_SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/s;
const DEFAULT_PORTS: Readonly<Record<string, string>> = { https: '443', http: '80' };

// A signer signs the same endpoint URL on every call and a verifier sees the same few: the
// results (frozen, a pure function of the string) are kept for the last 256 URLs of up to 2 KB.
const targets = new Map<string, CanonicalTarget>();
const TARGET_CACHE_SIZE = 256;
const TARGET_CACHE_MAX_URL = 2048;

/** Canonicalizes an absolute URL; `{ ok: false, reason }` for a malformed one. Never throws. */
export function canonicalizeTargetUri(url: string): CanonicalTarget {
  const cached = targets.get(url);
  if (cached !== undefined) return cached;
  const target = Object.freeze(canonicalizeTargetUriUncached(url));
  if (url.length <= TARGET_CACHE_MAX_URL) {
    if (targets.size >= TARGET_CACHE_SIZE) targets.clear();
    targets.set(url, target);
  }
  return target;
}

function canonicalizeTargetUriUncached(url: string): CanonicalTarget {
  const m = URL_SHAPE.exec(url);
  if (m === null) return { ok: false, reason: 'not an absolute URL with an authority' };
  const scheme = (m[1] as string).toLowerCase();
  const authority = canonicalizeAuthority(m[2] as string, scheme);
  if (!authority.ok) return authority;
  const path = canonicalizePath(m[3] as string);
  if (path === undefined) return { ok: false, reason: 'malformed percent-encoding in path' };
  const query = m[4] ?? '';
  return {
    ok: true,
    scheme,
    authority: authority.authority,
    targetUri: `${scheme}://${authority.authority}${path}${query}`,
  };
}

/**
 * Canonicalizes an authority (`[userinfo@]host[:port]`, as in a URL or a `Host` header) for
 * `scheme`: the `@authority` component value.
 */
export function canonicalizeAuthority(
  raw: string,
  scheme: string,
): { ok: true; authority: string } | { ok: false; reason: string } {
  const at = raw.lastIndexOf('@');
  const hostPort = at >= 0 ? raw.slice(at + 1) : raw;
  if (hostPort === '') return { ok: false, reason: 'empty authority' };
  let host: string;
  let port: string;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close < 0) return { ok: false, reason: 'IPv6 literal missing closing bracket' };
    const literal = hostPort.slice(1, close);
    if (literal.includes('%')) return { ok: false, reason: 'IPv6 zone identifier in signed URL' };
    if (!isIPv6(literal)) return { ok: false, reason: 'invalid IPv6 literal' };
    host = `[${literal.toLowerCase()}]`;
    const rest = hostPort.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) return { ok: false, reason: 'junk after IPv6 literal' };
    port = rest.slice(1);
  } else {
    const colon = hostPort.indexOf(':');
    if (colon >= 0 && hostPort.indexOf(':', colon + 1) >= 0) return { ok: false, reason: 'IPv6 literal not bracketed' };
    const name = colon >= 0 ? hostPort.slice(0, colon) : hostPort;
    port = colon >= 0 ? hostPort.slice(colon + 1) : '';
    if (name === '') return { ok: false, reason: 'authority missing host' };
    const dns = canonicalizeDnsName(name);
    if (dns === undefined) return { ok: false, reason: 'malformed host name' };
    host = dns;
  }
  if (port !== '') {
    if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) return { ok: false, reason: 'malformed port' };
    port = String(Number(port));
  }
  const keepPort = port !== '' && DEFAULT_PORTS[scheme] !== port;
  return { ok: true, authority: keepPort ? `${host}:${port}` : host };
}

// Receivers see the same few host names over and over; domainToASCII (UTS-46) is the costly step.
const dnsNames = new Map<string, string | undefined>();
const DNS_CACHE_SIZE = 256;

function canonicalizeDnsName(name: string): string | undefined {
  if (dnsNames.has(name)) return dnsNames.get(name);
  const canonical = canonicalizeDnsNameUncached(name);
  if (dnsNames.size >= DNS_CACHE_SIZE) dnsNames.clear();
  dnsNames.set(name, canonical);
  return canonical;
}

function canonicalizeDnsNameUncached(name: string): string | undefined {
  const stripped = name.endsWith('.') ? name.slice(0, -1) : name;
  if (stripped === '' || stripped.split('.').some((label) => label === '')) return undefined;
  // domainToASCII applies UTS-46 (case folding included) and returns '' when the name is invalid.
  const ascii = domainToASCII(stripped);
  if (ascii === '' || ascii.endsWith('.')) return undefined;
  return ascii.toLowerCase();
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
// Characters that may appear raw in a path (RFC 3986 pchar plus '/'); anything else is encoded.
const PATH_RAW = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/;

// A path of raw characters only (no `%`, nothing to encode) with no `.` or `..` segment comes out
// of the loop and removeDotSegments unchanged: the usual webhook path takes this shortcut.
const RAW_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/;

function canonicalizePath(path: string): string | undefined {
  if (path === '') return '/';
  if (RAW_PATH.test(path) && !DOT_SEGMENT.test(path)) return path;
  let out = '';
  for (let i = 0; i < path.length; i += 1) {
    const ch = path[i] as string;
    if (ch === '%') {
      const hex = path.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return undefined;
      const decoded = String.fromCharCode(parseInt(hex, 16));
      out += UNRESERVED.test(decoded) ? decoded : `%${hex.toUpperCase()}`;
      i += 2;
    } else if (PATH_RAW.test(ch)) {
      out += ch;
    } else {
      const code = path.codePointAt(i) as number;
      const char = String.fromCodePoint(code);
      for (const byte of Buffer.from(char, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
      i += char.length - 1;
    }
  }
  return removeDotSegments(out);
}

/** RFC 3986 §5.2.4, which keeps empty segments (so `//` survives). */
function removeDotSegments(input: string): string {
  let rest = input;
  const output: string[] = [];
  for (let guard = 0; rest.length > 0 && guard < 100_000; guard += 1) {
    if (rest.startsWith('../')) rest = rest.slice(3);
    else if (rest.startsWith('./')) rest = rest.slice(2);
    else if (rest.startsWith('/./')) rest = rest.slice(2);
    else if (rest === '/.') rest = '/';
    else if (rest.startsWith('/../')) {
      rest = rest.slice(3);
      output.pop();
    } else if (rest === '/..') {
      rest = '/';
      output.pop();
    } else if (rest === '.' || rest === '..') rest = '';
    else {
      const next = rest.indexOf('/', rest.startsWith('/') ? 1 : 0);
      const segment = next < 0 ? rest : rest.slice(0, next);
      output.push(segment);
      rest = next < 0 ? '' : rest.slice(next);
    }
  }
  return output.join('') || '/';
}
