import { isIP } from 'node:net';

/**
 * A cheap first check of a buyer-supplied webhook URL before any connection (security.md,
 * "Webhook URL validation (SSRF)"): https, no userinfo, and no IP literal in a reserved range.
 * Host names are not resolved here: DNS pinning is the deployment's job (egress proxy).
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
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return { ok: false, reason: 'loopback host' };
  if (isIP(host) !== 0 && isReservedAddress(host)) return { ok: false, reason: 'reserved address' };
  return { ok: true, url: parsed };
}

const V4_RESERVED: Array<[number, number]> = [
  [0x00000000, 8],
  [0x0a000000, 8],
  [0x64400000, 10],
  [0x7f000000, 8],
  [0xa9fe0000, 16],
  [0xac100000, 12],
  [0xc0a80000, 16],
  [0xe0000000, 4],
  [0xf0000000, 4],
];

function isReservedAddress(host: string): boolean {
  if (isIP(host) === 4) return isReservedV4(host);
  const lower = host.toLowerCase();
  if (lower.startsWith('::ffff:')) return true; // IPv4-mapped, in any spelling (the URL parser rewrites it to hex)
  if (lower === '::1' || lower === '::') return true;
  return /^(f[cd]|fe[89ab]|ff)/.test(lower);
}

function isReservedV4(host: string): boolean {
  const value = host.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
  return V4_RESERVED.some(
    ([base, bits]) => Math.floor(value / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)),
  );
}
