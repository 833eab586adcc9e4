import { AdcpWireError } from '../core/wire-error.js';
import type { JsonObject } from '../core/types.js';
import type { ResultFile } from '../core/task-result.js';
import { validateSellerUrl } from '../core/url-hygiene.js';
import { checkFilePart, filePartFields } from '../core/file-part.js';
import { isPlainObject } from '../core/plain-object.js';
import { sanitizeSellerText } from '../core/sanitize.js';

/** Largest FilePart `raw` accepted, in decoded bytes. */
export const MAX_FILE_RAW_BYTES = 1024 * 1024;

/** A FilePart after the checks (the `files` of a TaskResult). */
export type CheckedFile = ResultFile;

/**
 * The FileParts of `artifacts[0]` and of the status message, each checked by core's
 * `checkFilePart` before anything can fetch or show it (a2a-response-extraction.md, "FilePart URI
 * Validation"): URLs must be https, without userinfo, on an origin of the agent card; `raw` is
 * size-checked without decoding; a part with both is refused.
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
      const file = checkFile(part, allowedOrigins);
      if (file !== undefined) out.push(file);
    }
  }
  return out;
}

function checkFile(part: unknown, allowedOrigins: string[]): CheckedFile | undefined {
  const check = checkFilePart(part, { allowedOrigins, maxRawBytes: MAX_FILE_RAW_BYTES });
  if (!check.ok && check.reason === 'not_a_file_part') return undefined;
  const out: CheckedFile = {};
  const fields = filePartFields(part as JsonObject);
  const filename = sanitizeSellerText(fields.filename, { maxLength: 128 });
  const mediaType = sanitizeSellerText(fields.mediaType, { maxLength: 128 });
  if (filename !== undefined && filename !== '') out.filename = filename;
  if (mediaType !== undefined && mediaType !== '') out.mediaType = mediaType;
  if (!check.ok) out.refused = check.reason;
  else if (check.kind === 'url') out.url = check.url;
  else out.rawBytes = check.bytes;
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
    throw new AdcpWireError(
      'unsafe_url',
      `auth-required challenge_url refused (${check.reason}); allowed origins: ${allowedOrigins.join(', ')}`,
    );
  }
  return check.url;
}
