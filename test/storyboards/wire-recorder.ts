import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One HTTP request the agent received, as the wire carried it. */
export interface WireRecord {
  method: string;
  path: string;
  /** The JSON-RPC method of the body, when it has one. */
  rpc?: string;
  /** `MCP-Protocol-Version` of the request. */
  protocolVersion?: string;
  /** `Mcp-Session-Id` of the request, or the one the answer assigned (initialize). */
  session?: string;
}

/**
 * A recording reverse proxy in front of an agent (the server side of the wire as a test sees it):
 * every request is forwarded unchanged and the answer streamed back; what each carried is kept.
 */
export async function startWireRecorder(target: string): Promise<{
  url: (path: string) => string;
  records: WireRecord[];
  close: () => Promise<void>;
}> {
  const upstream = new URL(target);
  const records: WireRecord[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const record: WireRecord = { method: req.method ?? 'GET', path: req.url ?? '/' };
      const version = req.headers['mcp-protocol-version'];
      if (typeof version === 'string') record.protocolVersion = version;
      const session = req.headers['mcp-session-id'];
      if (typeof session === 'string') record.session = session;
      try {
        const rpc = JSON.parse(body.toString('utf8')) as { method?: unknown };
        if (typeof rpc.method === 'string') record.rpc = rpc.method;
      } catch {
        // not JSON
      }
      records.push(record);
      const headers = { ...req.headers, host: upstream.host };
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
        (answer) => {
          const assigned = answer.headers['mcp-session-id'];
          if (typeof assigned === 'string') record.session ??= assigned;
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.writeHead(502).end());
      res.on('close', () => forward.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    records,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
