import { createRequire } from 'node:module';

type GetDomain = (host: string, options: { allowPrivateDomains: boolean; extractHostname: boolean }) => string | null;

let getDomain: GetDomain | undefined;

/**
 * The eTLD+1 of a host (security.md, "Discovering an agent's signing keys", step 3): lower-cased,
 * in IDNA A-label form, against the Public Suffix List snapshot pinned by the exact `tldts`
 * version in package.json (ICANN and PRIVATE sections both, so `vercel.app` or `github.io` are
 * suffixes). Never fetched at run time. `undefined` for an IP address or a bare public suffix.
 */
export function registrableDomain(host: string): string | undefined {
  let ascii: string;
  try {
    // WHATWG URL parsing lower-cases and converts U-labels to A-labels (Punycode).
    ascii = new URL(`https://${host}/`).hostname;
  } catch {
    return undefined;
  }
  if (ascii.startsWith('[') || /^\d+(\.\d+){3}$/.test(ascii)) return undefined;
  getDomain ??= (createRequire(import.meta.url)('tldts') as { getDomain: GetDomain }).getDomain;
  return getDomain(ascii.replace(/\.$/, ''), { allowPrivateDomains: true, extractHostname: false }) ?? undefined;
}
