/** A JSON-RPC `error` object, as the server wrote it. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * How `sendRequest` rejects when the server answered with a JSON-RPC error: the wire's error
 * object kept as data in `error` (not rewritten into the SDK's `McpError`), for the transport to
 * turn into a `failed` result or a typed failure. An answer, not a failure to talk.
 */
export class RpcErrorAnswer extends Error {
  readonly error: JsonRpcErrorObject;

  constructor(error: JsonRpcErrorObject, what: string) {
    super(`${what}: JSON-RPC error ${error.code}`);
    this.name = 'RpcErrorAnswer';
    this.error = error;
  }
}

/** The error object of a captured JSON-RPC `error`, when it has an integer code. */
export function toRpcErrorObject(value: unknown): JsonRpcErrorObject | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { code, message, data } = value as Record<string, unknown>;
  if (typeof code !== 'number' || !Number.isInteger(code)) return undefined;
  const out: JsonRpcErrorObject = { code, message: typeof message === 'string' ? message : '' };
  if (data !== undefined) out.data = data;
  return out;
}
