import { isJsonObject } from './json-object.js';
import type { AdcpError } from './types.js';
import { parseJsonStrict } from './json.js';
import { jsonSizeExceeds } from './json-size.js';
import { dataPartData } from './data-part.js';
import { isPlainObject } from './plain-object.js';
import { unwrapStreamEnvelope } from './unwrap-stream-envelope.js';

/**
 * Structured AdCP errors out of MCP, A2A and JSON-RPC envelopes, in the client detection order of
 * transport-errors.md ("Client Detection Order"). The error object is returned as the seller sent
 * it (values not clamped, strings not sanitised); recovery decisions belong to `recovery.ts`.
 */

/** Largest accepted serialised `adcp_error`, in UTF-8 bytes. */
export const MAX_ADCP_ERROR_BYTES = 4096;
/** Longest accepted `code`. */
export const MAX_ADCP_ERROR_CODE_LENGTH = 64;
/** MCP text items longer than this are not parsed when looking for an error (UTF-8 bytes). */
export const MAX_ERROR_TEXT_BYTES = 64 * 1024;

/** JSON-RPC codes reserved for infrastructure rejections before tool dispatch. */
export const ADCP_JSONRPC_ERROR_CODES = {
  RATE_LIMITED: -32029,
  AUTH_MISSING: -32028,
  SERVICE_UNAVAILABLE: -32027,
} as const;

/**
 * Returns `value` when it is a valid `adcp_error`: a non-array object whose `code` is a string of
 * 1 to 64 characters, serialising to at most 4096 UTF-8 bytes. Anything else gives `null`.
 */
export function validateAdcpError(value: unknown): AdcpError | null {
  if (!isPlainObject(value)) return null;
  const code = value['code'];
  if (typeof code !== 'string' || code.length === 0 || code.length > MAX_ADCP_ERROR_CODE_LENGTH) return null;
  // Unserialisable values (cycles, BigInt) count as too large: no wire could carry them.
  return jsonSizeExceeds(value, MAX_ADCP_ERROR_BYTES) ? null : (value as AdcpError);
}

/**
 * The AdCP error of an MCP `CallToolResult`, or `null`. Only `isError: true` results are read:
 * 1. `structuredContent.adcp_error`; 5. a `content[]` text item whose JSON has `adcp_error`.
 */
export function extractAdcpErrorFromMcp(result: unknown): AdcpError | null {
  if (!isPlainObject(result) || result['isError'] !== true) return null;
  const structured = result['structuredContent'];
  if (isPlainObject(structured) && isPresent(structured['adcp_error'])) {
    return validateAdcpError(structured['adcp_error']); // step 1
  }
  const content = result['content'];
  if (!Array.isArray(content)) return null;
  for (const item of content) {
    // Step 5: text fallback, guarded by isError above.
    if (!isPlainObject(item) || item['type'] !== 'text' || typeof item['text'] !== 'string') continue;
    const text = item['text'];
    if (!text.includes('adcp_error')) continue;
    const parsed = parseJsonStrict(text, { maxBytes: MAX_ERROR_TEXT_BYTES });
    if (parsed.ok && isPlainObject(parsed.value) && isPresent(parsed.value['adcp_error'])) {
      return validateAdcpError(parsed.value['adcp_error']);
    }
  }
  return null;
}

/**
 * The AdCP error of an A2A Task, status-update event or 1.0 stream envelope (unwrapped once), or
 * `null`: 2. DataParts of every artifact, then 3. DataParts of `status.message.parts`. DataParts
 * are found by field presence (a 1.0 part has no `kind`).
 */
export function extractAdcpErrorFromA2A(task: unknown): AdcpError | null {
  const inner = unwrapStreamEnvelope(task);
  if (!isPlainObject(inner)) return null;
  const artifacts = inner['artifacts'];
  if (Array.isArray(artifacts)) {
    for (const artifact of artifacts) {
      const found = errorInParts(isPlainObject(artifact) ? artifact['parts'] : undefined);
      if (found !== undefined) return found; // step 2
    }
  }
  // An artifact-update event carries its artifact under `artifact`.
  const single = inner['artifact'];
  if (isPlainObject(single)) {
    const found = errorInParts(single['parts']);
    if (found !== undefined) return found;
  }
  const status = inner['status'];
  const message = isPlainObject(status) ? status['message'] : undefined;
  const found = errorInParts(isPlainObject(message) ? message['parts'] : undefined); // step 3
  if (found !== undefined) return found;
  // A bare Message answer (1.0 `{ message }`, v0.3 `kind: "message"`) carries its parts directly.
  const isMessage = inner['kind'] === 'message' || (typeof inner['role'] === 'string' && !('status' in inner));
  return (isMessage ? errorInParts(inner['parts']) : undefined) ?? null;
}

function errorInParts(parts: unknown): AdcpError | null | undefined {
  if (!Array.isArray(parts)) return undefined;
  for (const part of parts) {
    const data = dataPartData(part);
    if (data !== undefined && isPresent(data['adcp_error'])) return validateAdcpError(data['adcp_error']);
  }
  return undefined;
}

/**
 * The AdCP error of a JSON-RPC error (`error.data.adcp_error`, step 4), given either the whole
 * JSON-RPC response or its `error` member (an `McpError` works too), or `null`.
 */
export function extractAdcpErrorFromJsonRpc(errorOrResponse: unknown): AdcpError | null {
  if (!isJsonObject(errorOrResponse)) return null;
  let error: Record<string, unknown> = errorOrResponse;
  const nested = errorOrResponse['error'];
  if (!('data' in errorOrResponse) && isJsonObject(nested)) error = nested;
  const data = error['data'];
  return isJsonObject(data) && isPresent(data['adcp_error']) ? validateAdcpError(data['adcp_error']) : null;
}

/**
 * Every transport path of the detection order (steps 1 to 5) on one envelope whose transport is
 * not known: a JSON-RPC response, an MCP `CallToolResult` or an A2A task.
 */
export function extractAdcpError(envelope: unknown): AdcpError | null {
  if (!isPlainObject(envelope)) return null;
  if ('isError' in envelope || 'structuredContent' in envelope || 'content' in envelope) {
    const mcp = extractAdcpErrorFromMcp(envelope);
    if (mcp !== null) return mcp;
  }
  if (isJsonObject(envelope['error'])) return extractAdcpErrorFromJsonRpc(envelope);
  return extractAdcpErrorFromA2A(envelope);
}

/**
 * Step 6, the payload-layer fallback: `errors[0]` (or `payload.errors[0]`) of an AdCP body,
 * validated like an `adcp_error`. Use it only when the transport envelope carried no `adcp_error`.
 */
export function extractPayloadError(data: unknown): AdcpError | null {
  if (!isPlainObject(data)) return null;
  let errors = data['errors'];
  if (!Array.isArray(errors) && isPlainObject(data['payload'])) errors = data['payload']['errors'];
  return Array.isArray(errors) && errors.length > 0 ? validateAdcpError(errors[0]) : null;
}

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && value !== 0 && value !== '';
}
