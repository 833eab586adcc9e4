import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../../core/types.js';
import { isJsonObject } from '../../core/json-object.js';

/** The requests whose params the SDK validates after dispatch (a failure there is -32603 with a zod dump). */
const SCHEMAS = {
  'tools/call': CallToolRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tasks/get': GetTaskRequestSchema,
  'tasks/result': GetTaskPayloadRequestSchema,
  'tasks/cancel': CancelTaskRequestSchema,
  'tasks/list': ListTasksRequestSchema,
} as const;

type Issue = { path: PropertyKey[]; message: string };

/** One short sentence for the first schema issue: where, and what was expected. */
function describeIssue(method: string, issue: Issue | undefined): string {
  const path = (issue?.path ?? []).map(String).join('.');
  if (method === 'tools/call' && path === 'params.arguments') return 'tools/call arguments must be a JSON object';
  const expected = /expected (\w+)/.exec(issue?.message ?? '')?.[1];
  const what = expected === 'record' || expected === 'object' ? 'a JSON object' : expected;
  return `${method} ${path === '' ? 'params' : path} must be ${what ?? 'valid'}`;
}

/**
 * The JSON-RPC error answer for an MCP request whose params do not fit the method (JSON-RPC 2.0:
 * -32602 Invalid params), or undefined when the request may go on to the SDK. Checked before the
 * SDK, which would answer such a request with -32603 and a schema dump.
 */
export function checkMcpRequest(body: unknown): JsonObject | undefined {
  if (!isJsonObject(body) || typeof body.method !== 'string' || !Object.hasOwn(SCHEMAS, body.method)) return undefined;
  const method = body.method as keyof typeof SCHEMAS;
  const checked = SCHEMAS[method].safeParse(body);
  if (checked.success) return undefined;
  const message = `Invalid params: ${describeIssue(method, checked.error.issues[0])}`;
  const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
  const error: JsonObject = { code: ErrorCode.InvalidParams, message };
  if (method === 'tools/call') {
    error.data = { adcp_error: { code: 'INVALID_REQUEST', message: `${message}.`, recovery: 'correctable' } };
  }
  return { jsonrpc: '2.0', id, error };
}
