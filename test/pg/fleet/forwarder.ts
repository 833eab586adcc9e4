// A small round-robin HTTP forwarder on loopback, standing in for the load balancer in front of
// a receiver fleet. An upstream that refuses or drops the connection answers 502 to the sender,
// which retries (and the next attempt goes to the next upstream).
import { createServer, request, Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Forwarder {
  url: string;
  /** Replaces the port of upstream `index` (a restarted receiver listens on a new port). */
  setUpstream(index: number, port: number | undefined): void;
  /** Requests forwarded per upstream index, and 502s answered. */
  stats(): { forwarded: number[]; failed: number };
  close(): Promise<void>;
}

export async function startForwarder(ports: number[]): Promise<Forwarder> {
  const upstreams: (number | undefined)[] = [...ports];
  const forwarded = upstreams.map(() => 0);
  let failed = 0;
  let next = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const live = upstreams.map((port, index) => ({ port, index })).filter((u) => u.port !== undefined);
      const target = live.length === 0 ? undefined : live[next++ % live.length];
      const fail = () => {
        failed += 1;
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end('bad gateway');
      };
      if (target === undefined) return fail();
      const headers = { ...req.headers, 'content-length': String(body.length) };
      delete headers.connection;
      const upstream = request(
        { host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers, agent },
        (answer) => {
          forwarded[target.index] = (forwarded[target.index] ?? 0) + 1;
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on('error', () => res.destroy());
        },
      );
      upstream.on('error', fail);
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setUpstream(index, upstreamPort) {
      upstreams[index] = upstreamPort;
    },
    stats: () => ({ forwarded: [...forwarded], failed }),
    close: async () => {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
