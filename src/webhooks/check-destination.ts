import { isSpecialUseAddress } from '../core/special-use-address.js';

/**
 * A first check of a buyer-supplied webhook URL before any connection (security.md, "Webhook URL
 * validation (SSRF)"): https, no userinfo, not `localhost` (trailing dot or not), and no IP literal
 * in any special-use range (IPv6 forms that embed IPv4 judged by their IPv4 address). A host name
 * passes here; the emitter resolves it at send time and refuses special-use answers, connecting
 * to the address it checked (`createPinnedFetch`).
 */
export function checkWebhookDestination(
  url: string,
  options: { allowInsecure?: boolean } = {},
): { ok: true; url: URL } | { ok: false; reason: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'invalid URL' };
  }
  if (parsed.username !== '' || parsed.password !== '') return { ok: false, reason: 'userinfo in URL' };
  if (options.allowInsecure === true) {
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return { ok: false, reason: 'not http(s)' };
    return { ok: true, url: parsed };
  }
  if (parsed.protocol !== 'https:') return { ok: false, reason: 'not https' };
  const host = parsed.hostname.replace(/\.+$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return { ok: false, reason: 'loopback host' };
  if (isIpLiteral(parsed.hostname) && isSpecialUseAddress(parsed.hostname))
    return { ok: false, reason: 'special-use address' };
  if (host === '') return { ok: false, reason: 'no host' };
  return { ok: true, url: parsed };
}

/** The URL parser has already turned every IPv4 spelling into dotted decimal and put IPv6 in brackets. */
function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(hostname);
}
