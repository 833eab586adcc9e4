// Servers for a whole `describe`, started in before() and closed in after(): an SDK server
// playing the shared seller script, and this repository's createAdcpServer with a media buy
// that stays `submitted` until the test releases it.
import { before, after } from 'node:test';
import {
  createAdcpServer,
  type AdcpServer,
  type AdcpToolDefinition,
  type ListeningAdcpServer,
} from '../../src/server/index.js';
import type { JsonObject } from '../../src/core/types.js';
import { startServer, type ServerKind, type TestServer } from './sdk-servers.js';
import { sellerScript, gate } from './scripts.js';

export type Gate = ReturnType<typeof gate>;

/**
 * An SDK server of `kind` playing `sellerScript` for the enclosing describe. `gate(name)` makes
 * the gate a `gated` scenario with `gate: name` waits for; after() opens every gate, then closes.
 */
export function useScriptServer(kind: ServerKind): { readonly server: TestServer; gate(name: string): Gate } {
  const gates = new Map<string, Gate>();
  let server: TestServer | undefined;
  before(async () => {
    server = await startServer(kind, sellerScript(gates));
  });
  after(async () => {
    for (const g of gates.values()) g.open();
    await server?.close();
  });
  return {
    get server(): TestServer {
      if (server === undefined)
        throw new Error('useScriptServer: the server starts in before(); read it inside a test');
      return server;
    },
    gate(name: string): Gate {
      const g = gate();
      gates.set(name, g);
      return g;
    },
  };
}

/**
 * createAdcpServer with `create_media_buy` answering `submitted` and finishing with `result` once
 * `release()` is called, plus `tools`, for the enclosing describe: listening on a port unless
 * `listen` is false (tests that reach it in memory); after() releases it.
 */
export function useGatedAdcpServer(
  result: JsonObject,
  tools: AdcpToolDefinition[] = [],
  options: { listen?: boolean } = {},
): { readonly server: AdcpServer; readonly listening: ListeningAdcpServer; readonly release: () => void } {
  const released = gate();
  let server: AdcpServer | undefined;
  let listening: ListeningAdcpServer | undefined;
  before(async () => {
    const buy: AdcpToolDefinition = {
      name: 'create_media_buy',
      description: 'Buy',
      handler: (_args, ctx) =>
        ctx.submit(async () => {
          await released.wait;
          return result;
        }),
    };
    server = createAdcpServer({ validateRequests: false, tools: [...tools, buy] });
    if (options.listen !== false) listening = await server.listen();
  });
  after(async () => {
    released.open();
    await server?.close();
  });
  return {
    get server(): AdcpServer {
      if (server === undefined)
        throw new Error('useGatedAdcpServer: the server starts in before(); read it inside a test');
      return server;
    },
    get listening(): ListeningAdcpServer {
      if (listening === undefined)
        throw new Error(
          'useGatedAdcpServer: the server listens in before() unless { listen: false }; read it inside a test',
        );
      return listening;
    },
    release: () => released.open(),
  };
}
