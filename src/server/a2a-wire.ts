import type { JsonObject } from '../core/types.js';
import { isJsonObject } from './json-object.js';

/**
 * The two A2A wires (WIRE-NOTES, "A2A, both wires"). The SDK's transports write each wire's
 * shapes; the endpoint only needs to know which wire a method belongs to.
 */
export type A2AWire = '0.3' | '1.0';

/** JSON-RPC method -> [wire, operation]. */
export const A2A_METHODS: Readonly<Record<string, readonly [A2AWire, 'send' | 'stream' | 'get' | 'cancel']>> = {
  'message/send': ['0.3', 'send'],
  'message/stream': ['0.3', 'stream'],
  'tasks/get': ['0.3', 'get'],
  'tasks/cancel': ['0.3', 'cancel'],
  SendMessage: ['1.0', 'send'],
  SendStreamingMessage: ['1.0', 'stream'],
  GetTask: ['1.0', 'get'],
  CancelTask: ['1.0', 'cancel'],
};

export type InvocationParse =
  { ok: true; skill: string; input: JsonObject; contextId?: string } | { ok: false; message: string };

/**
 * Reads the AdCP profile invocation from a `message` (a2a-guide, "Profile Invocation Messages"):
 * exactly one DataPart `{ skill, input }`; TextParts are advisory; `parameters` is not an alias.
 * Accepts v0.3 (`kind: "data"`) and 1.0 (kind-less `{ data }`) parts.
 */
export function parseInvocation(message: unknown): InvocationParse {
  if (!isJsonObject(message) || !Array.isArray(message.parts)) {
    return { ok: false, message: 'params.message with parts is required' };
  }
  const dataParts = message.parts.filter(
    (part): part is JsonObject =>
      isJsonObject(part) && (part.kind === 'data' || (part.kind === undefined && 'data' in part)),
  );
  if (dataParts.length !== 1) {
    return { ok: false, message: 'the message must hold exactly one DataPart { skill, input }' };
  }
  const data = dataParts[0]?.data;
  if (!isJsonObject(data) || typeof data.skill !== 'string' || data.skill === '') {
    return { ok: false, message: 'the DataPart must carry a string skill' };
  }
  if (data.input !== undefined && !isJsonObject(data.input)) {
    return { ok: false, message: 'input must be a JSON object' };
  }
  const out: InvocationParse = { ok: true, skill: data.skill, input: data.input ?? {} };
  if (typeof message.contextId === 'string' && message.contextId !== '' && message.contextId.length <= 256) {
    out.contextId = message.contextId;
  }
  return out;
}
