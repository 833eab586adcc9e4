// A hand-written HTTP server for wire shapes the SDK servers never send (hostile or broken
// sellers): each request goes to `handle`, which writes whatever it likes.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface RawRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: { id?: unknown; method?: string; params?: Record<string, unknown> } | undefined;
}

export interface RawServer {
  base: string;
  requests: RawRequest[];
  close(): Promise<void>;
}

export async function startRawServer(
  handle: (req: RawRequest, res: ServerResponse, base: string) => void | Promise<void>,
): Promise<RawServer> {
  const requests: RawRequest[] = [];
  let base = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const raw: RawRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: text === '' ? undefined : JSON.parse(text),
      };
      requests.push(raw);
      void Promise.resolve(handle(raw, res, base)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${address.port}`;
  return {
    base,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, value: unknown, status = 200): void {
  const body = typeof value === 'string' ? value : JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(body);
}

/** What a card that follows the AdCP A2A profile says about it (a2a-profile-extension.md). */
export const PROFILE_CAPABILITIES = {
  streaming: true,
  extensions: [{ uri: 'https://adcontextprotocol.org/extensions/adcp/v3', required: true }],
};
const CAPABILITIES_SKILL = { id: 'get_adcp_capabilities', name: 'Capabilities', description: 'Runtime discovery' };

/** A v0.3 + 1.0 card whose interfaces point at `base`. */
export function dualCard(base: string, v1Path = '/v1', v03Path = '/v03'): Record<string, unknown> {
  return {
    name: 'raw',
    description: 'raw',
    version: '1',
    supportedInterfaces: [
      { url: `${base}${v1Path}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${base}${v03Path}`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
    capabilities: PROFILE_CAPABILITIES,
    skills: [CAPABILITIES_SKILL, { id: 'get_products', name: 'p', description: 'd' }],
  };
}

export function v1Card(base: string, path = '/v1'): Record<string, unknown> {
  return {
    name: 'raw',
    description: 'raw',
    version: '1',
    supportedInterfaces: [{ url: `${base}${path}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: PROFILE_CAPABILITIES,
    skills: [CAPABILITIES_SKILL],
  };
}

/** A completed v0.3 task. */
export function v03Task(data: Record<string, unknown>, id = 't1'): Record<string, unknown> {
  return {
    kind: 'task',
    id,
    contextId: 'c1',
    status: { state: 'completed' },
    artifacts: [{ artifactId: 'a', parts: [{ kind: 'data', data }] }],
  };
}

/** A completed 1.0 task (bare). */
export function v1Task(
  data: Record<string, unknown>,
  id = 't1',
  state = 'TASK_STATE_COMPLETED',
): Record<string, unknown> {
  return { id, contextId: 'c1', status: { state }, artifacts: [{ artifactId: 'a', parts: [{ data }] }] };
}
