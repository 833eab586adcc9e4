import { isFinalStatus } from './final-status.js';
import type { AdcpError, JsonObject, Recovery, RecoveryAction, TaskStatus } from './types.js';

/**
 * The one result type of every AdCP call, over MCP or A2A: a union keyed by the AdCP `status`.
 * "The agent said no" is data here (`failed`/`rejected` with `error`), never an exception.
 */
export type TaskResult<T = JsonObject> =
  | SuccessResult<T>
  | PendingResult<'submitted' | 'working', T>
  | PendingResult<'input-required', T>
  | PendingResult<'auth-required', T>
  | ErrorResult<'failed' | 'rejected', T>
  | CanceledResult<T>;

/** Type-only key: nothing sets it at run time. */
declare const RESPONSE_TYPE: unique symbol;

interface ResultBase<T = JsonObject> {
  /**
   * Type only, never set: the response type of the tool called, kept on every arm so that
   * `waitFor` of a narrowed `submitted` result still returns the tool's typed `data`.
   */
  readonly [RESPONSE_TYPE]?: T;
  /** The AdCP `task_id` when the agent gave one (from the payload). */
  taskId?: string;
  /** The transport's own task id: the A2A Task `id`, or the MCP Tasks `taskId`. */
  transportTaskId?: string;
  /** The A2A `contextId` (A2A only; never sent on MCP). */
  contextId?: string;
  /** Seller text (`message`, or a TextPart), sanitised: no control characters, length capped. */
  message?: string;
  /** The caller's `context` object as the agent echoed it. */
  context?: JsonObject;
  /** Which wire the answer came over. */
  protocol: 'mcp' | 'a2a';
  /** The raw envelope (MCP `CallToolResult`, A2A Task or stream event) for debugging. */
  raw: unknown;
  /**
   * A2A only: the FileParts of the artifact and the status message, each checked before anything
   * may fetch or show it (a2a-response-extraction.md, "FilePart URI Validation"). Absent when there
   * are none.
   */
  files?: ResultFile[];
  /** The response check, when the client validates responses (`validate: 'response' | 'both'`). */
  validation?: ResponseCheck;
  /**
   * The buyer-side operation a pending result was recorded under (set by the client). Plain data,
   * so a result that was stored and read back still resumes waiting, with its task-type check.
   */
  operation?: ResultOperation;
}

/** Where a pending result is tracked: its operation id, the agent (URL) and the tool that started it. */
export interface ResultOperation {
  operationId: string;
  agent: string;
  taskType: string;
}

/** A FilePart after the checks: a usable `url`, accepted inline bytes, or why it was refused. */
export interface ResultFile {
  /** An https URL on an origin of the agent card (userinfo-free, normalised). */
  url?: string;
  /** Decoded size of an accepted `raw` part (the bytes stay in `raw` of the result). */
  rawBytes?: number;
  filename?: string;
  mediaType?: string;
  /** Why the part was refused (then neither `url` nor `rawBytes` is set). */
  refused?: string;
}

/** How an answer fared against the schema of the release served (the data is kept either way). */
export interface ResponseCheck {
  ok: boolean;
  /** The release whose schema was used (`3.1`). */
  release: string;
  schema?: string;
  issues: { pointer: string; keyword: string; message: string }[];
}

/**
 * `T` is the tool's response type when the call was typed by tool name (`AdcpClient.call('get_products', ...)`:
 * `GetProductsResponse`); it is what the schema promises, checked only with `validate: 'response'`.
 */
export interface SuccessResult<T = JsonObject> extends ResultBase<T> {
  status: 'completed';
  /**
   * The AdCP body (flat envelope fields included), or `undefined` for a plain-text answer. A typed
   * tool's arms the client never returns as `completed` are left out (`CompletedData`).
   */
  data: CompletedData<T> | undefined;
  /** Plain text when the agent answered with no JSON. */
  text?: string;
}

export interface PendingResult<S extends TaskStatus, T = JsonObject> extends ResultBase<T> {
  status: S;
  data: JsonObject | undefined;
  /** Progress when the agent reports it. */
  progress?: { percentage?: number; step?: string };
}

export interface ErrorResult<S extends 'failed' | 'rejected', T = JsonObject> extends ResultBase<T> {
  status: S;
  data: JsonObject | undefined;
  error: ResultError;
}

export interface CanceledResult<T = JsonObject> extends ResultBase<T> {
  status: 'canceled';
  data: JsonObject | undefined;
  error?: ResultError;
}

/**
 * The arms of a tool's response a `completed` result can hold: not the async arms (`status`
 * `submitted`, `working`, `input-required`: the result has that status instead) and not the error
 * arm (`errors` required): a failure answered with only `errors[]` is a `failed` result
 * (decision 0166). `JsonObject` stays `JsonObject`.
 */
export type CompletedData<T> = Exclude<
  T,
  { status: 'submitted' | 'working' | 'input-required' } | { errors: readonly unknown[] }
>;

/** An `adcp_error` with what to do about it. */
export interface ResultError {
  /** The error object as the agent sent it (validated, not sanitised). */
  adcpError: AdcpError;
  code: string;
  /** The agent's `message`, sanitised like every seller text (absent when it sent none). */
  message?: string;
  recovery: Recovery;
  action: RecoveryAction;
  /** Seconds to wait before a retry, or `null` for exponential backoff. */
  retryDelaySeconds: number | null;
}

/** True for the four final AdCP statuses. */
export function isFinalResult(result: TaskResult): boolean {
  return isFinalStatus(result.status);
}
