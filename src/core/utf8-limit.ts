/**
 * Fast "is this text over N UTF-8 bytes?" for the response-size limits (mcp-response-extraction,
 * step 3: the limit counts UTF-8 bytes and is applied before `JSON.parse`).
 *
 * Each UTF-16 unit is 1 to 3 UTF-8 bytes (a surrogate pair is 4 bytes for 2 units), so the length
 * alone often decides. Otherwise only the prefix that can still change the answer is counted. On
 * Node the count uses the native `Buffer.byteLength` found on `globalThis` (no import: core stays
 * dependency-free and runs elsewhere with the pure loop).
 */

type ByteLength = (text: string) => number;

const MIN_CHUNK = 16_384;

const nativeByteLength: ByteLength | undefined = (() => {
  const buffer = (globalThis as { Buffer?: { byteLength?: unknown } }).Buffer;
  const fn = buffer?.byteLength;
  if (typeof fn !== 'function') return undefined;
  return (text: string) => (fn as (t: string, e: string) => number).call(buffer, text, 'utf8');
})();

/** Length of `text` in UTF-8 bytes (a lone surrogate counts as U+FFFD, 3 bytes), pure JavaScript. */
export function utf8ByteLengthPure(text: string): number {
  const n = text.length;
  let bytes = n;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++; // pair: 4 bytes for 2 units
      bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}

const byteLength: ByteLength = nativeByteLength ?? utf8ByteLengthPure;

/** Length of `text` in UTF-8 bytes (lone surrogates as U+FFFD), native-speed on Node. */
export function utf8ByteLength(text: string): number {
  return byteLength(text);
}

/** True when `text` encodes to more than `maxBytes` UTF-8 bytes. Allocates nothing on the pure path. */
export function utf8LengthExceeds(text: string, maxBytes: number): boolean {
  const n = text.length;
  if (n > maxBytes) return true; // every unit is at least one byte
  if (n * 3 <= maxBytes) return false; // and at most three
  let i = 0;
  let bytes = 0;
  for (;;) {
    const rest = n - i;
    if (bytes + rest > maxBytes) return true;
    if (bytes + 3 * rest <= maxBytes) return false;
    // Smallest prefix that, if ASCII, settles the answer; at least MIN_CHUNK to bound the rounds.
    let end = i + Math.max(MIN_CHUNK, Math.ceil((bytes + 3 * rest - maxBytes) / 2));
    if (end >= n) end = n;
    else if (isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end))) end++; // never split a pair
    bytes += byteLength(i === 0 && end === n ? text : text.slice(i, end));
    i = end;
  }
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
