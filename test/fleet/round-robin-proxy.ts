// The load balancer of the seller fleet test: loopback only, each request to the next instance
// in turn (no stickiness of any kind), a down instance skipped. An instance that refuses the
// connection is tried no further for that request (502): the caller retries, as behind any
// real balancer.
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  url: string;
  /** Sets (or, with undefined, takes out) the port of instance `index`. */
  setUpstream(index: number, port: number | undefined): void;
  /** The instance index that served each request, in order (-1: none could). */
  served: number[];
  close(): Promise<void>;
}

export async function startRoundRobinProxy(count: number): Promise<RoundRobinProxy> {
  const upstreams: (number | undefined)[] = Array.from({ length: count }, () => undefined);
  const served: number[] = [];
  let next = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let index = -1;
      for (let tried = 0; tried < upstreams.length && index < 0; tried += 1) {
        const candidate = next++ % upstreams.length;
        if (upstreams[candidate] !== undefined) index = candidate;
      }
      served.push(index);
      const port = index < 0 ? undefined : upstreams[index];
      const fail = () => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end('bad gateway');
      };
      if (port === undefined) return fail();
      const headers = { ...req.headers, 'content-length': String(body.length) };
      delete headers.connection;
      const send = (retry: boolean) => {
        const upstream = request(
          { host: '127.0.0.1', port, method: req.method, path: req.url, headers, agent },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            answer.on('error', () => res.destroy());
          },
        );
        upstream.on('error', () => {
          // A kept-alive connection the instance closed as it was reused: sent again once on a
          // new one (nothing of the request was read), as balancers do.
          if (retry && upstream.reusedSocket && !res.headersSent) return send(false);
          if (res.headersSent) res.destroy();
          else fail();
        });
        res.on('close', () => upstream.destroy());
        upstream.end(body);
      };
      send(true);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setUpstream(index, upstreamPort) {
      upstreams[index] = upstreamPort;
    },
    served,
    close: async () => {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
