// A loopback TCP relay in front of the test database: `cut()` makes PostgreSQL unreachable for
// whoever connects through it (listener closed, open connections destroyed) without touching the
// shared cluster; `restore()` listens again on the same port.
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpRelay {
  /** The database URL with its host and port replaced by the relay's. */
  url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpRelay(databaseUrl: string): Promise<TcpRelay> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  const make = (): Server =>
    createServer((inbound) => {
      const outbound = connect(Number(target.port || 5432), target.hostname);
      for (const socket of [inbound, outbound]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      inbound.pipe(outbound).pipe(inbound);
      inbound.on('close', () => outbound.destroy());
      outbound.on('close', () => inbound.destroy());
    });
  const listen = (server: Server, port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  let server = make();
  await listen(server, 0);
  const port = (server.address() as AddressInfo).port;
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  let listening = true;
  const cut = async () => {
    if (!listening) return;
    listening = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return {
    url: url.toString(),
    cut,
    async restore() {
      if (listening) return;
      server = make();
      await listen(server, port);
      listening = true;
    },
    close: cut,
  };
}
