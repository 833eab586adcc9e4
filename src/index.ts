/**
 * adcp-wire: the pure AdCP core (no I/O, no dependency). Spec algorithms keep the spec's names.
 * Transports, client, webhooks and server live under their own subpaths.
 */

// Response extraction (mcp-response-extraction, a2a-response-extraction)
export { extractAdcpResponseFromMcp, DEFAULT_MCP_MAX_BYTES } from './core/extract-mcp-response.js';
export type { McpExtractOptions } from './core/extract-mcp-response.js';
export { extractAdcpResponseFromA2A } from './core/extract-a2a-response.js';
export { locateA2AData, DEFAULT_A2A_MAX_DATAPART_BYTES } from './core/locate-a2a-data.js';
export type { A2AExtractOptions, A2ADataLocation, A2ADataOutcome } from './core/locate-a2a-data.js';
export { unwrapStreamEnvelope } from './core/unwrap-stream-envelope.js';
export type { StreamEnvelope, StreamEnvelopeKind } from './core/unwrap-stream-envelope.js';
export { normalizeTaskState, isTaskStatus } from './core/normalize-task-state.js';

// TaskResult builders
export { taskResultFromMcp } from './core/task-result-from-mcp.js';
export type { TaskResultFromMcpOptions } from './core/task-result-from-mcp.js';
export { taskResultFromA2A } from './core/task-result-from-a2a.js';
export type { TaskResultFromA2AOptions } from './core/task-result-from-a2a.js';
export { taskResultFromJsonRpcError } from './core/task-result-from-json-rpc.js';
export type { TaskResultFromJsonRpcOptions } from './core/task-result-from-json-rpc.js';
export type { TaskResultOptions } from './core/result-fields.js';
export { isFinalResult } from './core/task-result.js';
export type {
  TaskResult,
  SuccessResult,
  PendingResult,
  ErrorResult,
  CanceledResult,
  ResultError,
  ResultFile,
  ResultOperation,
} from './core/task-result.js';

// Errors and recovery (transport-errors, error-handling)
export {
  extractAdcpErrorFromMcp,
  extractAdcpErrorFromA2A,
  extractAdcpErrorFromJsonRpc,
  extractAdcpError,
  validateAdcpError,
  ADCP_JSONRPC_ERROR_CODES,
  MAX_ADCP_ERROR_BYTES,
  MAX_ADCP_ERROR_CODE_LENGTH,
} from './core/extract-error.js';
export {
  getRecovery,
  recoveryAction,
  retryDelaySeconds,
  toResultError,
  STANDARD_CODE_RECOVERY,
  RETRY_AFTER_MIN_SECONDS,
  RETRY_AFTER_MAX_SECONDS,
} from './core/recovery.js';
export type { RecoveryActionOptions } from './core/recovery.js';
export { AdcpWireError, isAdcpWireError, WIRE_ERROR_CODES } from './core/wire-error.js';
export type { WireErrorCode, WireErrorOptions } from './core/wire-error.js';

// Webhooks (webhooks, webhook payload and receiver envelope vectors)
export { extractWebhookPayload, detectWebhookFormat } from './core/webhook-payload.js';
export type { WebhookFormat, WebhookPayload, WebhookPayloadOptions } from './core/webhook-payload.js';
export { validateWebhookEnvelope } from './core/webhook-envelope.js';
export type { McpWebhookEnvelope, WebhookEnvelopeCheck, WebhookEnvelopeError } from './core/webhook-envelope.js';

// Hygiene: JSON, URLs, seller strings
export { parseJsonStrict } from './core/json.js';
export type { JsonParseResult, JsonParseFailure, ParseJsonOptions } from './core/json.js';
export { validateSellerUrl } from './core/url-hygiene.js';
export type { UrlCheck, UrlRejection, UrlAllowList, RawCheck } from './core/url-hygiene.js';
export { checkFilePart } from './core/file-part.js';
export type { FilePartCheck, FilePartOptions } from './core/file-part.js';
export { sanitizeSellerText, DEFAULT_SANITIZE_MAX_LENGTH } from './core/sanitize.js';
export type { SanitizeOptions } from './core/sanitize.js';

// Wire types
export { TASK_STATUSES, FINAL_STATUSES, INTERIM_STATUSES } from './core/types.js';
export type { AdcpError, JsonObject, Recovery, RecoveryAction, TaskStatus } from './core/types.js';
