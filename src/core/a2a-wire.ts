import type { JsonObject } from './types.js';

/**
 * The two A2A wires the library speaks (WIRE-NOTES, "A2A, both wires"): 1.0 (`SendMessage`,
 * kind-less parts) and v0.3 (`message/send`, `kind`-tagged parts).
 */
export type A2AWire = '1.0' | '0.3';

/**
 * How a client picks its A2A wire: `auto` (the card's 1.0 interface under the AdCP profile, else
 * its v0.3 one), `1.0` (the profile, nothing else), `0.3`, or `plain`: A2A 1.0 to an agent that
 * does not declare the profile, without activating it or holding answers to it (decision 0165).
 */
export type A2AWireChoice = 'auto' | A2AWire | 'plain';

/** Every `A2AWireChoice`, for option checks and help text. */
export const A2A_WIRE_CHOICES = ['auto', '1.0', '0.3', 'plain'] as const satisfies readonly A2AWireChoice[];

/** What a JSON-RPC method does, whichever wire names it. */
export type A2AOperation = 'send' | 'stream' | 'get' | 'cancel' | 'resubscribe';

/** The AdCP A2A profile, activated on every request (a2a-guide.md, "A2A Client Setup"). */
export const ADCP_PROFILE_URI = 'https://adcontextprotocol.org/extensions/adcp/v3';

/** JSON-RPC method names of each wire. */
export const A2A_METHODS = {
  '1.0': {
    send: 'SendMessage',
    stream: 'SendStreamingMessage',
    get: 'GetTask',
    cancel: 'CancelTask',
    resubscribe: 'SubscribeToTask',
  },
  '0.3': {
    send: 'message/send',
    stream: 'message/stream',
    get: 'tasks/get',
    cancel: 'tasks/cancel',
    resubscribe: 'tasks/resubscribe',
  },
} as const satisfies Record<A2AWire, Record<A2AOperation, string>>;

const ROUTES = new Map<string, { wire: A2AWire; operation: A2AOperation }>(
  (Object.keys(A2A_METHODS) as A2AWire[]).flatMap((wire) =>
    (Object.keys(A2A_METHODS[wire]) as A2AOperation[]).map(
      (operation) => [A2A_METHODS[wire][operation], { wire, operation }] as const,
    ),
  ),
);

/** The wire and operation of a JSON-RPC method name; `undefined` for any other name. */
export function a2aMethodRoute(method: string): { wire: A2AWire; operation: A2AOperation } | undefined {
  return ROUTES.get(method);
}

/** JSON-RPC error a 1.0 server answers to a wire it does not speak (`VERSION_NOT_SUPPORTED`). */
export const VERSION_NOT_SUPPORTED = -32009;
/** JSON-RPC `TaskNotFoundError`, the same code on both wires. */
export const TASK_NOT_FOUND = -32001;

/**
 * Headers every request of `wire` carries, on top of the caller's: the version, and the AdCP
 * profile's activation unless the call is `plain` (an agent that does not declare the profile).
 */
export function wireHeaders(wire: A2AWire, options: { plain?: boolean } = {}): Record<string, string> {
  const version: Record<string, string> = wire === '1.0' ? { 'A2A-Version': '1.0' } : {};
  return options.plain === true ? version : { ...version, 'A2A-Extensions': ADCP_PROFILE_URI };
}

export interface InvocationOptions {
  messageId: string;
  contextId?: string | undefined;
  /** Continue this A2A task (after `input-required`). */
  taskId?: string | undefined;
  /** Ask the server to answer before the task ends (1.0 `returnImmediately`, v0.3 `blocking: false`). */
  returnImmediately?: boolean | undefined;
  /** Display-only TextPart; it never carries information beyond the DataPart. */
  advisoryText?: string | undefined;
}

/**
 * The `params` of a send for one AdCP skill: a Message with exactly one authoritative DataPart
 * `{ skill, input }` (a2a-guide.md, "Profile Invocation Messages"), in the shape of `wire`.
 * `parseProfileInvocation` (a2a-profile-invocation.ts) is its inverse.
 */
export function invocationParams(
  wire: A2AWire,
  skill: string,
  input: JsonObject,
  options: InvocationOptions,
): JsonObject {
  const v1 = wire === '1.0';
  const parts: JsonObject[] = [];
  if (options.advisoryText !== undefined)
    parts.push(v1 ? { text: options.advisoryText } : { kind: 'text', text: options.advisoryText });
  parts.push(v1 ? { data: { skill, input } } : { kind: 'data', data: { skill, input } });
  const message: JsonObject = v1
    ? { messageId: options.messageId, role: 'ROLE_USER', parts }
    : { kind: 'message', messageId: options.messageId, role: 'user', parts };
  if (options.contextId !== undefined) message['contextId'] = options.contextId;
  if (options.taskId !== undefined) message['taskId'] = options.taskId;
  const params: JsonObject = { message };
  if (options.returnImmediately === true)
    params['configuration'] = v1 ? { returnImmediately: true } : { blocking: false };
  return params;
}

/** The `params` of a get or cancel of A2A task `id` (same shape on both wires). */
export function taskIdParams(id: string): JsonObject {
  return { id };
}
