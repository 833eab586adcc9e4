import { extractAdcpErrorFromMcp } from './extract-error.js';
import {
  extractAdcpResponseFromMcp,
  mayBeJsonObject,
  type McpExtractOptions,
  DEFAULT_MCP_MAX_BYTES,
} from './extract-mcp-response.js';
import { isAdcpErrorOnly, isPlainObject } from './plain-object.js';
import {
  assembleResult,
  baseFields,
  cleanText,
  deliveredStatus,
  errorForStatus,
  MAX_RESULT_TEXT_LENGTH,
  payloadAdcpError,
  payloadResult,
  resultErrorFor,
  type TaskResultOptions,
} from './result-fields.js';
import type { TaskResult } from './task-result.js';
import type { JsonObject } from './types.js';
import { utf8LengthExceeds } from './utf8-limit.js';
import { AdcpWireError } from './wire-error.js';

export interface TaskResultFromMcpOptions extends TaskResultOptions, McpExtractOptions {}

/**
 * Builds the TaskResult of an MCP `CallToolResult` (mcp-guide, flat envelope: body and envelope
 * fields are siblings at the root).
 * - `isError`, or a payload holding only `adcp_error` (an error missing its flag): `failed`, with
 *   the validated `adcp_error` and its recovery, or a `generic_error` stand-in when there is none.
 * - A payload without `status` is `completed`, or `failed` when it carries `adcp_error`. Its own
 *   `status` wins otherwise (a completed MCP Task may deliver AdCP `submitted`). See
 *   `payloadStatus` for status strings that are not task statuses.
 * - Plain text with no JSON: `completed`, `data: undefined`, the text kept (sanitised) in `text`.
 * `message` is sanitised, `context` echoed, `taskId` is the payload's `task_id`, `raw` the input.
 *
 * @throws AdcpWireError `protocol` for a result that is not an object or a malformed `status`;
 *   `response_too_large` when the only JSON text item was over `maxBytes` (skipped, not parsed).
 */
export function taskResultFromMcp(result: unknown, options: TaskResultFromMcpOptions = {}): TaskResult {
  if (!isPlainObject(result)) throw new AdcpWireError('protocol', 'MCP tool result is not an object');
  const fields = baseFields('mcp', result, options.transportTaskId);
  const structured = isPlainObject(result['structuredContent']) ? result['structuredContent'] : undefined;

  const data = result['isError'] ? null : extractAdcpResponseFromMcp(result, options);
  if (data === null) {
    // isError, an error missing its flag, or plain text.
    const adcpError = extractAdcpErrorFromMcp(result['isError'] === true ? result : { ...result, isError: true });
    const text = plainText(result);
    if (result['isError'] || adcpError !== null || (structured !== undefined && isAdcpErrorOnly(structured))) {
      const message = cleanText(adcpError?.message) ?? cleanText(text);
      // `body` is `structured`, or a stand-in without `task_id`/`context`: its fields are those of `structured`.
      const body = structured ?? (adcpError === null ? undefined : { adcp_error: adcpError });
      return payloadResult(
        'failed',
        fields,
        body,
        message,
        resultErrorFor('failed', adcpError, structured, message, options),
      );
    }
    if (hasOversizedJsonText(result, options.maxBytes ?? DEFAULT_MCP_MAX_BYTES)) {
      throw new AdcpWireError(
        'response_too_large',
        'MCP text content is over the response-size limit and was not parsed',
      );
    }
    const kept = cleanText(text, MAX_RESULT_TEXT_LENGTH);
    if (kept !== undefined) Object.assign(fields, { text: kept, message: cleanText(kept) });
    return assembleResult('completed', fields, undefined, undefined);
  }

  const status = deliveredStatus(data);
  const message = cleanText(data['message']) ?? cleanText(payloadAdcpError(data)?.message);
  const error = errorForStatus(status, data, message, options, () => null);
  return payloadResult(status, fields, data, message, error);
}

/** The text items of `content[]`, joined by newlines, read no further than needed for display. */
function plainText(result: JsonObject): string | undefined {
  const content = result['content'];
  if (!Array.isArray(content)) return undefined;
  let out: string | undefined;
  for (let i = 0; i < content.length; i++) {
    const item: unknown = content[i];
    if (!isPlainObject(item) || item['type'] !== 'text' || typeof item['text'] !== 'string') continue;
    out = out === undefined ? item['text'] : `${out}\n${item['text']}`;
    if (out.length > MAX_RESULT_TEXT_LENGTH * 4) break;
  }
  return out;
}

function hasOversizedJsonText(result: JsonObject, maxBytes: number): boolean {
  const content = result['content'];
  if (!Array.isArray(content)) return false;
  return content.some(
    (item: unknown) =>
      isPlainObject(item) &&
      item['type'] === 'text' &&
      typeof item['text'] === 'string' &&
      mayBeJsonObject(item['text']) &&
      utf8LengthExceeds(item['text'], maxBytes),
  );
}
