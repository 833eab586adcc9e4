import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../core/types.js';
import { isPlainObject } from '../core/plain-object.js';
import { isReadOnlyTool } from '../core/tool-table.js';

export interface PreparedArgs {
  args: JsonObject;
  idempotencyKey: string | undefined;
}

/**
 * The arguments as sent: `idempotency_key` set for mutating tools (the caller's key as is, else
 * one already in `args`, else a new UUID v4) and reused on every retry by the caller of this
 * function; `context` set when given; `context_id` removed on MCP (mcp-guide, "Context
 * Management": callers MUST NOT send it for continuity); on MCP, a `push_notification_config`
 * without `operation_id` gets a new UUID one, so webhooks and polling can name the same
 * operation (webhooks.md, "Operation IDs"). Throws `TypeError` for an
 * `idempotency_key` argument that is not a non-empty string.
 */
export function prepareArgs(
  tool: string,
  args: JsonObject,
  options: {
    idempotencyKey?: string | undefined;
    omitIdempotencyKey?: boolean | undefined;
    context?: JsonObject | undefined;
    protocol: 'mcp' | 'a2a';
    /** The release spoken with the agent: its manifest says whether `tool` is a read. */
    release?: string | undefined;
  },
): PreparedArgs {
  checkIdempotencyKeyArg(tool, args);
  const out: JsonObject = { ...args };
  if (options.protocol === 'mcp') delete out['context_id'];
  if (options.context !== undefined) out['context'] = options.context;
  let key: string | undefined;
  if (options.omitIdempotencyKey === true) {
    delete out['idempotency_key'];
    return { args: withOperationId(out, options.protocol), idempotencyKey: undefined };
  }
  if (options.idempotencyKey !== undefined) key = options.idempotencyKey;
  else if (typeof out['idempotency_key'] === 'string') key = out['idempotency_key'];
  else if (!isReadOnlyTool(tool, options.release)) key = randomUUID();
  if (key !== undefined) out['idempotency_key'] = key;
  return { args: withOperationId(out, options.protocol), idempotencyKey: key };
}

/** Throws `TypeError` for an `idempotency_key` argument that is not a non-empty string. */
export function checkIdempotencyKeyArg(tool: string, args: JsonObject): void {
  const given = args['idempotency_key'];
  if (given !== undefined && (typeof given !== 'string' || given === '')) {
    throw new TypeError(
      `${tool}: idempotency_key in the arguments must be a non-empty string (or pass the idempotencyKey option)`,
    );
  }
}

function withOperationId(out: JsonObject, protocol: 'mcp' | 'a2a'): JsonObject {
  const push = out['push_notification_config'];
  if (protocol === 'mcp' && isPlainObject(push) && push['operation_id'] === undefined) {
    // webhooks.md, "Operation IDs": buyers SHOULD supply one per task invocation (UUID recommended).
    out['push_notification_config'] = { ...push, operation_id: randomUUID() };
  }
  return out;
}
