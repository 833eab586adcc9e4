/**
 * IPv4 ranges no webhook (or any seller-chosen URL) may reach: the IANA IPv4 Special-Purpose
 * Address Registry (RFC 6890 and its updates) plus multicast. Some entries there are "globally
 * reachable" (AS112, AMT relays), but none hosts a buyer's receiver.
 */
const V4_SPECIAL: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (CGN)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.31.196.0', 24], // AS112-v4
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // direct delegation AS112
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

/**
 * IPv6 special-purpose ranges inside global unicast 2000::/3 (everything outside it is refused
 * anyway): IETF protocol assignments (Teredo, ORCHID, benchmarking...), documentation, 6to4
 * (deprecated; it embeds an IPv4 address), AS112-v6.
 */
const V6_SPECIAL: ReadonlyArray<readonly [string, number]> = [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['2620:4f:8000::', 48],
  ['3fff::', 20],
];

/**
 * Whether `ip` (an IPv4 or IPv6 literal, brackets and a zone id allowed) is one a seller must
 * never connect to on a buyer's behalf: every IANA special-use range, judged after unwrapping the
 * IPv6 forms that embed an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`), so
 * `[::ffff:7f00:1]` and `[64:ff9b::a9fe:a9fe]` are loopback and metadata as their IPv4 forms.
 * IPv6 outside global unicast (2000::/3) is refused: loopback, unspecified, IPv4-compatible,
 * unique-local, link-local, site-local, multicast, discard, SRv6. Anything unparsable is refused.
 */
export function isSpecialUseAddress(ip: string): boolean {
  const host = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isV4(host)) return isSpecialV4(v4Value(host));
  if (!/^[0-9a-f:.]+$/i.test(host)) return true;
  const groups = v6Groups(host);
  if (groups === undefined) return true;
  const embedded = embeddedV4(groups);
  if (embedded !== undefined) return isSpecialV4(embedded);
  if ((groups[0]! & 0xe000) !== 0x2000) return true;
  return V6_SPECIAL.some(([base, bits]) => inPrefix(groups, v6Groups(base)!, bits));
}

function isSpecialV4(value: number): boolean {
  return V4_SPECIAL.some(([base, bits]) => value >>> (32 - bits) === v4Value(base) >>> (32 - bits));
}

function isV4(text: string): boolean {
  const octets = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  return octets !== null && octets.slice(1).every((o) => Number(o) <= 255);
}

function v4Value(dotted: string): number {
  return dotted.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0) >>> 0;
}

/** The IPv4 address in an IPv4-mapped (`::ffff:0:0/96`) or NAT64 (`64:ff9b::/96`) address. */
function embeddedV4(groups: number[]): number | undefined {
  const high = groups.slice(0, 6);
  const mapped = high.every((g, i) => (i === 5 ? g === 0xffff : g === 0));
  const nat64 = high.every((g, i) => g === [0x64, 0xff9b, 0, 0, 0, 0][i]);
  if (!mapped && !nat64) return undefined;
  return ((groups[6]! << 16) | groups[7]!) >>> 0;
}

/** The eight 16-bit groups of an IPv6 literal (a trailing dotted IPv4 part included). */
function v6Groups(text: string): number[] | undefined {
  let head = text;
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(head);
  if (dotted !== null) {
    if (!isV4(dotted[1]!)) return undefined;
    const value = v4Value(dotted[1]!);
    tail.push(value >>> 16, value & 0xffff);
    head = head.slice(0, -dotted[1]!.length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const [left, right, extra] = head.split('::');
  if (extra !== undefined) return undefined;
  const parse = (part: string | undefined): number[] =>
    part === undefined || part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16));
  const l = parse(left);
  const r = [...parse(right), ...tail];
  const missing = 8 - l.length - r.length;
  if (right === undefined ? missing !== 0 : missing < 0) return undefined;
  const groups = [...l, ...Array<number>(right === undefined ? 0 : missing).fill(0), ...r];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

function inPrefix(groups: number[], base: number[], bits: number): boolean {
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const take = Math.min(16, bits);
    const mask = (0xffff << (16 - take)) & 0xffff;
    if ((groups[i]! & mask) !== (base[i]! & mask)) return false;
  }
  return true;
}

/**
 * Whether `ip` (an IPv4 or IPv6 literal, brackets and a zone id allowed) is a loopback address:
 * 127.0.0.0/8, `::1`, or the IPv4-mapped and NAT64 forms of 127.0.0.0/8.
 */
export function isLoopbackIp(ip: string): boolean {
  const host = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isV4(host)) return v4Value(host) >>> 24 === 127;
  if (!/^[0-9a-f:.]+$/i.test(host)) return false;
  const groups = v6Groups(host);
  if (groups === undefined) return false;
  const embedded = embeddedV4(groups);
  if (embedded !== undefined) return embedded >>> 24 === 127;
  return groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1;
}
