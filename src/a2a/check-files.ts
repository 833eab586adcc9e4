import { AdcpWireError } from '../core/wire-error.js';
import type { JsonObject } from '../core/types.js';
import { validateSellerUrl, checkFilePartRaw } from '../core/url-hygiene.js';
import { isPlainObject } from '../core/plain-object.js';
import { sanitizeSellerText } from '../core/sanitize.js';

/** Largest FilePart `raw` accepted, in decoded bytes. */
export const MAX_FILE_RAW_BYTES = 1024 * 1024;

/** A FilePart after the checks: a usable `url`, accepted inline bytes, or why it was refused. */
export interface CheckedFile {
  url?: string;
  /** Decoded size of an accepted `raw` part (the bytes stay in `raw` of the result). */
  rawBytes?: number;
  filename?: string;
  mediaType?: string;
  refused?: string;
}

/**
 * The FileParts of `artifacts[0]` and of the status message, each checked before anything can
 * fetch or show it (a2a-response-extraction.md, "FilePart URI Validation"): URLs must be https,
 * without userinfo, on an origin of the agent card; `raw` is size-checked without decoding.
 */
export function filePartsOf(task: JsonObject, allowedOrigins: string[]): CheckedFile[] {
  const out: CheckedFile[] = [];
  const artifacts = Array.isArray(task['artifacts']) ? task['artifacts'] : [];
  const status = isPlainObject(task['status']) ? task['status'] : undefined;
  const message = isPlainObject(status?.['message']) ? status['message'] : undefined;
  const first: unknown = artifacts[0];
  for (const parts of [isPlainObject(first) ? first['parts'] : undefined, message?.['parts']]) {
    if (!Array.isArray(parts)) continue;
    for (const part of parts) {
      const file = checkFilePart(part, allowedOrigins);
      if (file !== undefined) out.push(file);
    }
  }
  return out;
}

function checkFilePart(part: unknown, allowedOrigins: string[]): CheckedFile | undefined {
  if (!isPlainObject(part)) return undefined;
  // 1.0: { url } or { raw } with filename/mediaType; v0.3: { kind: 'file', file: { uri | bytes, name, mimeType } }.
  const v03 = part['kind'] === 'file' && isPlainObject(part['file']) ? part['file'] : undefined;
  const url = v03 !== undefined ? v03['uri'] : part['url'];
  const raw = v03 !== undefined ? v03['bytes'] : part['raw'];
  if (url === undefined && raw === undefined) return undefined;
  const out: CheckedFile = {};
  const filename = sanitizeSellerText(v03 !== undefined ? v03['name'] : part['filename'], { maxLength: 128 });
  const mediaType = sanitizeSellerText(v03 !== undefined ? v03['mimeType'] : part['mediaType'], { maxLength: 128 });
  if (filename !== undefined && filename !== '') out.filename = filename;
  if (mediaType !== undefined && mediaType !== '') out.mediaType = mediaType;
  if (url !== undefined && raw !== undefined) {
    out.refused = 'malformed: both url and raw';
  } else if (url !== undefined) {
    const check = validateSellerUrl(url, { allowedOrigins });
    if (check.ok) out.url = check.url;
    else out.refused = check.reason;
  } else {
    const check = checkFilePartRaw(raw, MAX_FILE_RAW_BYTES);
    if (check.ok) out.rawBytes = check.bytes;
    else out.refused = check.reason;
  }
  return out;
}

/**
 * Checks the `challenge_url` of an `auth-required` payload against the card's origins and
 * returns the normalised URL (seller redirect parameters dropped). A URL that fails the checks
 * throws `unsafe_url`: nothing may open it.
 */
export function checkAuthChallenge(url: unknown, allowedOrigins: string[]): string {
  const check = validateSellerUrl(url, { allowedOrigins });
  if (!check.ok) {
    throw new AdcpWireError('unsafe_url', `auth-required challenge_url refused (${check.reason}); allowed origins: ${allowedOrigins.join(', ')}`);
  }
  return check.url;
}
