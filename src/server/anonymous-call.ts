import type { IncomingMessage } from 'node:http';
import { a2aMethodRoute } from '../core/a2a-wire.js';
import { isJsonObject } from '../core/json-object.js';
import { readInvocation, type ProfileMode } from './a2a-profile-gate.js';

/** Which endpoint a request came to. */
export type EndpointKind = 'mcp' | 'a2a' | 'a2a-legacy';

/**
 * Whether a caller without credentials may make this call: anything but a call of a tool outside
 * `publicTools` (MCP `tools/call`, A2A send/stream naming the skill). Protocol discovery
 * (`initialize`, `tools/list`) and task reads pass (tasks are scoped to the caller's principal);
 * a malformed call passes too, to get the endpoint's own error (it runs no tool).
 */
export function mayCallAnonymously(
  kind: EndpointKind,
  req: IncomingMessage,
  body: unknown,
  publicTools: ReadonlySet<string>,
): boolean {
  if (Array.isArray(body)) return body.every((item) => mayCallAnonymously(kind, req, item, publicTools));
  if (!isJsonObject(body) || typeof body.method !== 'string') return true;
  const params = isJsonObject(body.params) ? body.params : {};
  if (kind === 'mcp') {
    return body.method !== 'tools/call' || (typeof params.name === 'string' && publicTools.has(params.name));
  }
  const route = a2aMethodRoute(body.method);
  if (route === undefined || (route.operation !== 'send' && route.operation !== 'stream')) return true;
  const mode: ProfileMode = kind === 'a2a' ? 'profile' : 'legacy';
  const invocation = readInvocation(req, route.wire, mode, params.message);
  return !invocation.ok || publicTools.has(invocation.skill);
}
