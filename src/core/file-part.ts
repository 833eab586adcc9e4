import { isPlainObject } from './plain-object.js';
import type { JsonObject } from './types.js';
import { checkFilePartRaw, validateSellerUrl, type UrlAllowList, type UrlRejection } from './url-hygiene.js';

/**
 * A2A FileParts under the hygiene rules of a2a-response-extraction.md ("FilePart URI Validation"):
 * 1.0 parts carry `url` or `raw` (base64) with `mediaType`; v0.3 parts are `kind: "file"` with
 * `file.uri` or `file.bytes` and `file.mimeType`.
 */
export type FilePartCheck =
  | { ok: true; kind: 'url'; url: string; mediaType: string | undefined }
  | { ok: true; kind: 'raw'; raw: string; bytes: number; mediaType: string | undefined }
  | { ok: false; reason: 'not_a_file_part' | 'ambiguous_part' | 'invalid_base64' | 'too_large' | UrlRejection };

export interface FilePartOptions extends UrlAllowList {
  /** Largest accepted decoded `raw`/`bytes` content. Default 1 MiB. */
  maxRawBytes?: number;
}

/** The members of an A2A FilePart on either wire, as sent (unchecked). */
export interface FilePartFields {
  /** 1.0 `url`, v0.3 `file.uri`. */
  url: unknown;
  /** 1.0 `raw`, v0.3 `file.bytes` (base64). */
  raw: unknown;
  /** 1.0 `mediaType`, v0.3 `file.mimeType`. */
  mediaType: unknown;
  /** 1.0 `filename`, v0.3 `file.name`. */
  filename: unknown;
}

/** Reads a part's file members from the 1.0 shape, or from `file` of a v0.3 `kind: "file"` part. */
export function filePartFields(part: JsonObject): FilePartFields {
  const legacy = part['kind'] === 'file' && isPlainObject(part['file']) ? part['file'] : undefined;
  if (legacy !== undefined)
    return { url: legacy['uri'], raw: legacy['bytes'], mediaType: legacy['mimeType'], filename: legacy['name'] };
  return { url: part['url'], raw: part['raw'], mediaType: part['mediaType'], filename: part['filename'] };
}

/**
 * Checks one A2A FilePart: a URL must pass `validateSellerUrl` (https, no userinfo, allowed host,
 * redirect parameters dropped); inline bytes must be base64 no larger than `maxRawBytes` once
 * decoded. A part setting both a URL and bytes breaks the A2A oneof and is refused. Never throws
 * on seller input.
 */
export function checkFilePart(part: unknown, options: FilePartOptions): FilePartCheck {
  if (!isPlainObject(part)) return { ok: false, reason: 'not_a_file_part' };
  const { url, raw, mediaType: media } = filePartFields(part);
  const mediaType = typeof media === 'string' ? media : undefined;
  const hasUrl = url !== undefined && url !== null;
  const hasRaw = raw !== undefined && raw !== null;
  if (hasUrl && hasRaw) return { ok: false, reason: 'ambiguous_part' };
  if (hasUrl) {
    const checked = validateSellerUrl(url, options);
    return checked.ok ? { ok: true, kind: 'url', url: checked.url, mediaType } : checked;
  }
  if (hasRaw) {
    const checked = checkFilePartRaw(raw, options.maxRawBytes ?? 1024 * 1024);
    if (!checked.ok)
      return { ok: false, reason: checked.reason === 'not_a_string' ? 'invalid_base64' : checked.reason };
    return { ok: true, kind: 'raw', raw: raw as string, bytes: checked.bytes, mediaType };
  }
  return { ok: false, reason: 'not_a_file_part' };
}
