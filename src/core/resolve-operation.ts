/**
 * Which AdCP operation a request asks for: the one resolver the request-signing gate, the MCP and
 * A2A dispatchers and request-schema selection all use (security.md, "Operation resolution over
 * A2A", the AdCP 3.2.3 erratum: "one source, three uses"). Pure: it reads the request's method
 * or path and its body, never a header (`A2A-Extensions` included), a TextPart, metadata or an
 * Agent Card.
 *
 * | request                                                         | resolved operation            |
 * | --------------------------------------------------------------- | ----------------------------- |
 * | JSON-RPC `tools/call` (MCP)                                     | `params.name`                 |
 * | JSON-RPC `SendMessage`, `SendStreamingMessage` (A2A 1.0),       | the `skill` of the Message's  |
 * | `message/send`, `message/stream` (A2A 0.3)                      | sole DataPart                 |
 * | HTTP+JSON `POST …/message:send`, `…/message:stream` (A2A)       | the same, from the `message`  |
 * | any other JSON-RPC method (`tasks/cancel`, `GetTask`, …)        | none: a protocol method       |
 *
 * Fail closed: a body that does not resolve to exactly one operation is `request_body_malformed`,
 * signed or not. The hardening clauses (MUST from 3.3) apply now: one JSON-RPC request object,
 * never a batch; duplicate keys refused after string decoding (`"skill"` and `"sk\u0069ll"`
 * collide); a case variant of a recognised member (`Skill`, `Parts`, `Method`) refused; each Part
 * carries exactly one content member and a `kind` that agrees; no FilePart; exactly one DataPart
 * whose `data` is an object with a non-empty string `skill`. Names compare exactly, with no
 * trimming, case-folding or alias.
 */

import { isJsonObject } from './json-object.js';
import { parseJsonStrict } from './json.js';
import type { JsonObject } from './types.js';

/** Where an operation came from (`request_signing.operation_sources`). */
export type OperationSource = 'mcp_tools_call' | 'a2a_invocation_skill';

/** The sources this resolver implements, as `get_adcp_capabilities` advertises them. */
export const OPERATION_SOURCES: readonly OperationSource[] = ['mcp_tools_call', 'a2a_invocation_skill'];

/** JSON-RPC methods that carry an A2A invocation Message, on each wire. */
const A2A_MESSAGE_METHODS: ReadonlyMap<string, '1.0' | '0.3'> = new Map([
  ['SendMessage', '1.0'],
  ['SendStreamingMessage', '1.0'],
  ['message/send', '0.3'],
  ['message/stream', '0.3'],
]);

/** The A2A HTTP+JSON paths that carry a Message (the last path segment, exact). */
const HTTP_JSON_MESSAGE_SEGMENTS = new Set(['message:send', 'message:stream']);

export type OperationResolution =
  /** An AdCP operation: the MCP tool name or the A2A invocation's `skill`. */
  | {
      ok: true;
      kind: 'operation';
      /** The JSON-RPC method, or the HTTP+JSON path segment (`message:send`). */
      method: string;
      operation: string;
      source: OperationSource;
      /** MCP `arguments`, or the A2A DataPart's `input` (legacy `parameters`); `{}` when absent. */
      args: JsonObject;
      /** For an A2A invocation: `message.taskId` when the request continues a task. */
      taskId?: string;
    }
  /** A JSON-RPC method that names no AdCP operation (`tasks/cancel`, `GetTask`, `initialize`, ...). */
  | { ok: true; kind: 'protocol_method'; method: string }
  /** Nothing to resolve: no body (a GET, a DELETE, an HTTP+JSON task read). */
  | { ok: true; kind: 'none' }
  /** Unresolvable: refuse with `request_body_malformed` before any capability list or handler. */
  | { ok: false; code: 'request_body_malformed'; reason: string };

export interface OperationRequest {
  /** The request's URL path (or whole URL): only HTTP+JSON `…/message:send` and `…/message:stream` read it. */
  path?: string;
  /** The body as received (UTF-8 bytes or text); empty or absent for a request with no body. */
  body?: Uint8Array | string;
}

const malformed = (reason: string): OperationResolution => ({ ok: false, code: 'request_body_malformed', reason });

/**
 * Resolves the operation of one request from the bytes received: strict UTF-8, strict JSON
 * (duplicate keys after decoding refused), then `resolveParsedOperation`. Never throws.
 */
export function resolveOperation(request: OperationRequest): OperationResolution {
  const body = request.body;
  let text: string;
  if (body === undefined) text = '';
  else if (typeof body === 'string') text = body;
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
    } catch {
      return malformed('the body is not well-formed UTF-8');
    }
  }
  if (text.trim() === '') {
    const segment = httpJsonSegment(request.path);
    return segment === undefined ? { ok: true, kind: 'none' } : malformed(`${segment} carries no body`);
  }
  const parsed = parseJsonStrict(text);
  if (!parsed.ok) {
    return malformed(
      parsed.reason === 'duplicate_key' ? 'an object repeats a member name (after string decoding)' : 'not JSON',
    );
  }
  return resolveParsedOperation(parsed.value, request.path);
}

/**
 * Resolves the operation of a body the caller already parsed with `parseJsonStrict` (duplicate
 * keys refused: this function cannot see them). `path` as in `OperationRequest`.
 */
export function resolveParsedOperation(body: unknown, path?: string): OperationResolution {
  const segment = httpJsonSegment(path);
  if (segment !== undefined) {
    // A2A HTTP+JSON: the path names the method (exactly: `message:Send` is no alias); the body is
    // one request object.
    if (!HTTP_JSON_MESSAGE_SEGMENTS.has(segment))
      return malformed(`'${segment}' is not message:send or message:stream`);
    if (!isJsonObject(body)) return malformed(`${segment} takes one request object`);
    const variant = caseVariant(body, ['message']);
    if (variant !== undefined) return malformed(`the request carries '${variant}', a case variant of 'message'`);
    return resolveInvocation(segment, body.message);
  }
  if (Array.isArray(body)) {
    return malformed('a JSON-RPC batch: send one request object per HTTP request');
  }
  if (!isJsonObject(body)) return malformed('not a JSON-RPC request object');
  const variant = caseVariant(body, ['jsonrpc', 'id', 'method', 'params']);
  if (variant !== undefined) return malformed(`the request carries '${variant}', a case variant of a JSON-RPC member`);
  const method = body.method;
  // A JSON-RPC response a client posts back (MCP) carries no operation and runs nothing.
  if (method === undefined && ('result' in body || 'error' in body) && 'id' in body) return { ok: true, kind: 'none' };
  if (typeof method !== 'string') return malformed('a JSON-RPC request needs a string method');
  if (method === 'tools/call') return resolveToolsCall(body.params);
  if (A2A_MESSAGE_METHODS.has(method)) {
    if (!isJsonObject(body.params)) return malformed(`${method} needs params with a message`);
    const paramsVariant = caseVariant(body.params, ['message']);
    if (paramsVariant !== undefined) return malformed(`params carry '${paramsVariant}', a case variant of 'message'`);
    return resolveInvocation(method, body.params.message);
  }
  return { ok: true, kind: 'protocol_method', method };
}

function resolveToolsCall(params: unknown): OperationResolution {
  if (!isJsonObject(params)) return malformed('tools/call needs params with a name');
  const variant = caseVariant(params, ['name', 'arguments']);
  if (variant !== undefined) return malformed(`tools/call params carry '${variant}', a case variant`);
  const name = params.name;
  if (typeof name !== 'string' || name === '') return malformed('tools/call needs a non-empty string params.name');
  // Resolution reads only the name; arguments that are not an object are the dispatcher's to refuse.
  const args = isJsonObject(params.arguments) ? params.arguments : {};
  return { ok: true, kind: 'operation', method: 'tools/call', operation: name, source: 'mcp_tools_call', args };
}

/** The members of a Part that carry content (A2A 1.0: text, data, raw, url; 0.3: text, data, file). */
const CONTENT_MEMBERS = ['text', 'data', 'raw', 'url', 'file'] as const;
const PART_MEMBERS = ['kind', ...CONTENT_MEMBERS];

function resolveInvocation(method: string, message: unknown): OperationResolution {
  if (!isJsonObject(message)) return malformed(`${method} needs a Message object`);
  const messageVariant = caseVariant(message, ['parts', 'taskId', 'messageId', 'kind', 'role']);
  if (messageVariant !== undefined) return malformed(`the Message carries '${messageVariant}', a case variant`);
  const parts = message.parts;
  if (!Array.isArray(parts) || parts.length === 0) return malformed('the Message needs a non-empty parts array');
  let data: JsonObject | undefined;
  let dataParts = 0;
  for (const part of parts) {
    if (!isJsonObject(part)) return malformed('every Part must be an object');
    const partVariant = caseVariant(part, PART_MEMBERS);
    if (partVariant !== undefined) return malformed(`a Part carries '${partVariant}', a case variant`);
    const present = CONTENT_MEMBERS.filter((member) => Object.hasOwn(part, member));
    if (present.length !== 1) {
      return malformed('every Part must carry exactly one content member (text, data, raw, url or file)');
    }
    const member = present[0] as (typeof CONTENT_MEMBERS)[number];
    const kind = part.kind;
    const expected = member === 'raw' || member === 'url' ? 'file' : member;
    if (kind !== undefined && kind !== expected) {
      return malformed(`a Part's kind ${JSON.stringify(kind)} disagrees with its content member '${member}'`);
    }
    if (expected === 'file') return malformed('the Message carries a FilePart (raw, url or file)');
    if (member === 'text') {
      if (typeof part.text !== 'string') return malformed('a TextPart text must be a string');
      continue;
    }
    dataParts += 1;
    if (isJsonObject(part.data)) data = part.data;
    else return malformed('a DataPart data must be a JSON object');
  }
  if (dataParts === 0) return malformed('the Message carries no DataPart (text is never an AdCP invocation)');
  if (dataParts > 1 || data === undefined) return malformed('the Message carries more than one DataPart');
  const dataVariant = caseVariant(data, ['skill', 'input', 'parameters']);
  if (dataVariant !== undefined) return malformed(`the DataPart carries '${dataVariant}', a case variant`);
  const skill = data.skill;
  if (typeof skill !== 'string' || skill === '') return malformed("the DataPart's skill must be a non-empty string");
  const input = isJsonObject(data.input) ? data.input : isJsonObject(data.parameters) ? data.parameters : {};
  const resolved: OperationResolution = {
    ok: true,
    kind: 'operation',
    method,
    operation: skill,
    source: 'a2a_invocation_skill',
    args: input,
  };
  if (typeof message.taskId === 'string' && message.taskId !== '') resolved.taskId = message.taskId;
  return resolved;
}

/**
 * The first member of `object` that is a case variant of one of `names` without being it
 * (`Skill` for `skill`): some decoders match member names case-insensitively.
 */
function caseVariant(object: JsonObject, names: readonly string[]): string | undefined {
  for (const key of Object.keys(object)) {
    if (names.includes(key)) continue;
    const lower = key.toLowerCase();
    if (names.some((name) => name.toLowerCase() === lower)) return key;
  }
  return undefined;
}

/**
 * The last path segment of `path` (or of a whole URL's path) when it names an HTTP+JSON A2A
 * message method, in any spelling (`message:send`, `Message:Send`), so that a variant spelling is
 * refused rather than passed as "no operation".
 */
function httpJsonSegment(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  let pathname = path;
  const scheme = pathname.indexOf('://');
  if (scheme !== -1) {
    const slash = pathname.indexOf('/', scheme + 3);
    pathname = slash === -1 ? '/' : pathname.slice(slash);
  }
  const end = pathname.search(/[?#]/);
  if (end !== -1) pathname = pathname.slice(0, end);
  let segment = pathname.slice(pathname.lastIndexOf('/') + 1);
  try {
    segment = decodeURIComponent(segment); // `message%3Asend` routes to message:send on most routers
  } catch {
    // Not valid percent-encoding: compared as written.
  }
  return segment.toLowerCase().startsWith('message:') ? segment : undefined;
}
