import type { IncomingMessage, ServerResponse } from 'node:http';

/** What the server sends instead of dispatching a request: a status, headers and a JSON body. */
export interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * `close`: close the connection after answering (a body over the cap is left unread).
   * `close-if-unread`: the body was not read; when one is on its way, close the connection rather
   * than drain it (a refused caller does not get to stream us a gigabyte).
   */
  readonly connection?: 'close' | 'close-if-unread';
}

/** Whether a body follows the request's headers. */
export function hasBodyComing(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** Writes `answer` (or only ends `res`, when an endpoint already sent its headers). */
export function sendAnswer(req: IncomingMessage, res: ServerResponse, answer: Answer): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const close = answer.connection === 'close' || (answer.connection === 'close-if-unread' && hasBodyComing(req));
  res.writeHead(answer.status, {
    'content-type': 'application/json',
    ...answer.headers,
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(JSON.stringify(answer.body));
}

/** A JSON-RPC error answer with no id (the request's id is unknown or unread). */
export function rpcErrorAnswer(status: number, code: number, message: string, data?: unknown): Answer {
  return {
    status,
    body: { jsonrpc: '2.0', id: null, error: data === undefined ? { code, message } : { code, message, data } },
  };
}
