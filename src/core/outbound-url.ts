import { isLoopbackIp, isSpecialUseAddress } from './special-use-address.js';

/**
 * What a URL a counterparty chose may reach (security.md, "Webhook URL validation (SSRF)"):
 * - `public` (the default): https only, never `localhost`, no special-use address;
 * - `loopback`: as `public`, but http(s) to `localhost` and loopback addresses too (a seller on
 *   loopback, in local tests and demos); private, link-local and metadata addresses stay refused;
 * - `any`: http(s) anywhere (tests only).
 */
export type OutboundReach = 'public' | 'loopback' | 'any';

/**
 * The one first check of a URL the seller or buyer is told to fetch or post to (a buyer's
 * webhook URL, a brand.json, a `jwks_uri`), before any connection: no userinfo; then as `reach`
 * says. IPv6 forms that embed IPv4 are judged by their IPv4 address. A host name passes here:
 * the caller resolves it at connect time and refuses special-use answers
 * (`createPinnedFetch`, src/transport/pinned-fetch.ts), connecting to the address it checked.
 */
export function checkOutboundUrl(
  url: string,
  options: { reach?: OutboundReach } = {},
): { ok: true; url: URL } | { ok: false; reason: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'invalid URL' };
  }
  if (parsed.username !== '' || parsed.password !== '') return { ok: false, reason: 'userinfo in URL' };
  const reach = options.reach ?? 'public';
  const web = parsed.protocol === 'https:' || parsed.protocol === 'http:';
  if (reach === 'any') return web ? { ok: true, url: parsed } : { ok: false, reason: 'not http(s)' };
  if (reach === 'loopback' && isLoopbackHost(parsed.hostname))
    return web ? { ok: true, url: parsed } : { ok: false, reason: 'not http(s)' };
  if (parsed.protocol !== 'https:') return { ok: false, reason: 'not https' };
  const refused = hostRefusal(parsed.hostname, 'public');
  return refused === undefined ? { ok: true, url: parsed } : { ok: false, reason: refused };
}

/**
 * The address half of `checkOutboundUrl`, for a URL's `hostname` (as the URL parser gives it):
 * why `reach` refuses that host (`localhost`, a special-use IP literal, none), or undefined. A
 * host name passes: it is judged when resolved.
 */
export function hostRefusal(hostname: string, reach: OutboundReach): string | undefined {
  if (reach === 'any') return undefined;
  if (hostname.replace(/\.+$/, '') === '') return 'no host';
  if (isLoopbackHost(hostname)) return reach === 'loopback' ? undefined : 'loopback host';
  if (isIpLiteral(hostname) && isSpecialUseAddress(hostname)) return 'special-use address';
  return undefined;
}

/** `localhost`, a name under it, or a loopback IP literal (a URL's `hostname`). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/\.+$/, '');
  return host === 'localhost' || host.endsWith('.localhost') || (isIpLiteral(hostname) && isLoopbackIp(hostname));
}

/** The URL parser has already turned every IPv4 spelling into dotted decimal and put IPv6 in brackets. */
function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(hostname);
}
