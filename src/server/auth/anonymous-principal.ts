import { isIPv6 } from 'node:net';

/**
 * The principal of a caller without credentials: `anonymous@` and its address, so task ownership,
 * rate limits and budgets are per caller, not one pool every anonymous caller drains. An IPv4
 * address stands alone (IPv4-mapped IPv6 is unwrapped); IPv6 counts by /64, the block one host
 * is usually given, so hopping addresses inside it gains nothing.
 */
export function anonymousPrincipal(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined || remoteAddress === '') return 'anonymous@unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
  if (mapped !== null) return `anonymous@${mapped[1]}`;
  if (!isIPv6(remoteAddress)) return `anonymous@${remoteAddress}`;
  return `anonymous@${ipv6Prefix64(remoteAddress)}::/64`;
}

/** The first four groups of an IPv6 address, expanded and lower-case (`2001:db8:0:1`). */
function ipv6Prefix64(address: string): string {
  const [head = '', tail] = address.toLowerCase().split('%')[0]!.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - left.length - right.length;
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, missing)).fill('0'), ...right];
  return groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':');
}
