/**
 * Strict Base64 decoders for signature headers. Node's `Buffer.from(x, 'base64')` silently skips
 * characters it does not know, so an alphabet-mixing token would decode "successfully"; these
 * check the alphabet first (webhook-signing README, vector 021: mixing is malformed).
 */

const BASE64URL_UNPADDED = /^[A-Za-z0-9_-]*$/;
const BASE64_PADDED = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Whether `text` is unpadded Base64URL that `decodeBase64UrlStrict` decodes (to `floor(length * 3 / 4)` bytes). */
export function isBase64UrlStrict(text: string): boolean {
  return BASE64URL_UNPADDED.test(text) && text.length % 4 !== 1;
}

/** Decodes unpadded Base64URL; `undefined` when the text uses another alphabet, padding, or a bad length. */
export function decodeBase64UrlStrict(text: string): Buffer | undefined {
  return isBase64UrlStrict(text) ? Buffer.from(text, 'base64url') : undefined;
}

/** Decodes standard padded Base64 (RFC 4648 §4); `undefined` on any other shape. */
export function decodeBase64Strict(text: string): Buffer | undefined {
  if (!BASE64_PADDED.test(text)) return undefined;
  return Buffer.from(text, 'base64');
}

/** Decodes either strict standard padded Base64 or strict unpadded Base64URL, never a mix. */
export function decodeEitherBase64(text: string): Buffer | undefined {
  return decodeBase64Strict(text) ?? decodeBase64UrlStrict(text);
}

/** Unpadded Base64URL, as webhook-v1 `Signature` tokens and nonces use. */
export function encodeBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}
