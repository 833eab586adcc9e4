import { request } from 'node:http';

export type Json = { [key: string]: unknown };

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface RawPostOptions {
  body: string | Buffer;
  headers?: Record<string, string>;
  /** Source address on loopback (127.0.0.2, ...), to play a second anonymous caller. */
  localAddress?: string;
  timeoutMs?: number;
}

/** One raw HTTP POST (no client library in between), bounded in time. */
export function rawPost(url: string, options: RawPostOptions): Promise<RawAnswer> {
  const body = typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : options.body;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': String(body.length),
          ...options.headers,
        },
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
        timeout: options.timeoutMs ?? 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} in time`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC message of an answer: the JSON body, or the last `data:` line of an SSE body. */
export function rpcMessage(answer: RawAnswer): Json {
  const type = String(answer.headers['content-type'] ?? '');
  if (!type.includes('text/event-stream')) return JSON.parse(answer.text) as Json;
  const data = answer.text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .filter((line) => line !== '');
  const last = data.at(-1);
  if (last === undefined) throw new Error(`no SSE data in ${answer.status} answer: ${answer.text.slice(0, 200)}`);
  return JSON.parse(last) as Json;
}

/** Opens an MCP session with a raw `initialize`; returns its id. */
export async function openMcpSession(
  mcpUrl: string,
  options: { headers?: Record<string, string>; localAddress?: string } = {},
): Promise<string> {
  const answer = await rawPost(mcpUrl, {
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
    }),
    ...options,
  });
  const id = answer.headers['mcp-session-id'];
  if (answer.status !== 200 || typeof id !== 'string') {
    throw new Error(`initialize answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  }
  return id;
}

/** Sends one JSON-RPC request on an MCP session and returns the answer. */
export function mcpPost(
  mcpUrl: string,
  sessionId: string,
  body: string | Buffer,
  options: { headers?: Record<string, string>; localAddress?: string } = {},
): Promise<RawAnswer> {
  return rawPost(mcpUrl, {
    body,
    headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18', ...options.headers },
    ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
  });
}
