import { canonicalizeAuthority, canonicalizeTargetUri } from './canonicalize-target-uri.js';
import { serializeInnerList, type InnerList } from './structured-fields.js';

/** Header lookup over a fetch `Headers`, a node `IncomingHttpHeaders` or a plain record. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

/** Reads one header case-insensitively; repeated values are joined with `, ` (RFC 9110). */
export function readHeader(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  let value = record[name];
  if (value === undefined) {
    for (const key of Object.keys(record)) {
      if (key.toLowerCase() === name) {
        value = record[key];
        break;
      }
    }
  }
  return Array.isArray(value) ? value.join(', ') : value;
}

export type SignatureBaseResult =
  | { ok: true; base: string }
  | { ok: false; reason: 'target_uri_malformed' | 'component_missing' | 'component_unsupported'; component?: string };

/**
 * The RFC 9421 §2.5 signature base for `components` with the AdCP canonical `@target-uri` and
 * `@authority`. `@authority` comes from the `Host` header when present and must equal the
 * authority of the canonical `@target-uri` (security.md step 10: cross-vhost replay).
 */
export function buildSignatureBase(
  request: { method: string; url: string; headers: HeaderSource },
  signatureParams: InnerList,
): SignatureBaseResult {
  const target = canonicalizeTargetUri(request.url);
  if (!target.ok) return { ok: false, reason: 'target_uri_malformed' };
  const host = readHeader(request.headers, 'host');
  if (host !== undefined && hostAuthority(host.trim(), target.scheme) !== target.authority) {
    return { ok: false, reason: 'target_uri_malformed' };
  }
  let base = '';
  for (const item of signatureParams.items) {
    if (item.value.type !== 'string' || item.params.length > 0) return { ok: false, reason: 'component_unsupported' };
    const name = item.value.value;
    let value: string | undefined;
    if (name === '@method') value = request.method.toUpperCase();
    else if (name === '@target-uri') value = target.targetUri;
    else if (name === '@authority') value = target.authority;
    else if (name.startsWith('@')) return { ok: false, reason: 'component_unsupported', component: name };
    else value = readHeader(request.headers, name)?.trim();
    if (value === undefined) return { ok: false, reason: 'component_missing', component: name };
    base += `"${name}": ${value}\n`;
  }
  return { ok: true, base: `${base}"@signature-params": ${serializeInnerList(signatureParams)}` };
}

// A server sees one `Host` on nearly every request: the last answer is kept (a pure function of
// its two arguments). `undefined` for an authority that does not canonicalize.
let lastHost: { host: string; scheme: string; authority: string | undefined } | undefined;

function hostAuthority(host: string, scheme: string): string | undefined {
  if (lastHost !== undefined && lastHost.host === host && lastHost.scheme === scheme) return lastHost.authority;
  const canonical = canonicalizeAuthority(host, scheme);
  const authority = canonical.ok ? canonical.authority : undefined;
  if (host.length <= 1024) lastHost = { host, scheme, authority };
  return authority;
}
