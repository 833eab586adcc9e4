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
  if (host !== undefined) {
    const fromHost = canonicalizeAuthority(host.trim(), target.scheme);
    if (!fromHost.ok || fromHost.authority !== target.authority) return { ok: false, reason: 'target_uri_malformed' };
  }
  const lines: string[] = [];
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
    lines.push(`"${name}": ${value}`);
  }
  lines.push(`"@signature-params": ${serializeInnerList(signatureParams)}`);
  return { ok: true, base: lines.join('\n') };
}
