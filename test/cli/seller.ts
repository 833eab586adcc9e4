import { startReferenceSeller } from '../../src/seller/index.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';

/** A reference seller on 127.0.0.1:0 whose media buys finish fast; close it in `after()`. */
export function fastSeller(): Promise<ListeningAdcpServer> {
  return startReferenceSeller({ port: 0, host: '127.0.0.1', timings: { workingAfterMs: 20, completeAfterMs: 60 } });
}

/** A URL nothing listens on (port 9 on loopback: connection refused at once). */
export const DEAD_URL = 'http://127.0.0.1:9/mcp';
