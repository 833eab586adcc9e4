import type { AdcpToolName, ToolRequest, ToolResponse } from '../../schemas/tool-types.js';
import type { AdcpToolDefinition, ToolContext } from '../types.js';

/** Envelope fields the server fills in on every answer, so a handler may leave them out. */
type ServerFilled =
  'status' | 'context' | 'context_id' | 'task_id' | 'timestamp' | 'replayed' | 'adcp_version' | 'adcp_major_version';

/** Each member of a response union with the server-filled fields optional (names and types kept). */
type Loosen<T> = T extends unknown
  ? { [P in keyof T as P extends ServerFilled ? never : P]: T[P] } & { [P in ServerFilled & keyof T]?: T[P] }
  : never;

/** What a typed handler answers: the tool's response body, or an error body. */
export type ToolReply<N extends AdcpToolName> =
  Loosen<ToolResponse<N>> | { adcp_error: { code: string; message?: string; [key: string]: unknown } };

/** An AdCP tool whose handler is typed by its name (generated 3.1 request and response types). */
export interface TypedToolDefinition<N extends AdcpToolName> extends Omit<AdcpToolDefinition, 'name' | 'handler'> {
  name: N;
  /** Receives the request as validated against the tool's request schema (unless `validateRequest: false`). */
  handler(args: ToolRequest<N>, context: ToolContext): ToolReply<N> | Promise<ToolReply<N>>;
}

/**
 * Types a seller's tool by its AdCP name: `args` is the tool's request and the answer is checked
 * against its response type, both generated from the official schemas. Returns the plain
 * definition `createAdcpServer({ tools })` takes; untyped definitions keep working beside it.
 */
export function adcpTool<N extends AdcpToolName>(definition: TypedToolDefinition<N>): AdcpToolDefinition {
  return definition;
}
