import type { IncomingMessage } from 'node:http';
import { createAdcpServer } from '../server/create-adcp-server.js';
import type { ListeningAdcpServer } from '../server/create-adcp-server.js';
import type { WebhookSend } from '../server/types.js';
import { createSqliteTaskStore } from '../store/sqlite-task-store.js';
import type { TaskStore } from '../store/task-store.js';
import type { TaskPolicy } from '../store/task-policy.js';
import { createFaultInjector } from './fault-injection.js';
import { openSellerDb } from './seller-db.js';
import type { SellerTimings } from './seller-tools.js';
import { sellerTools } from './seller-tools.js';

export interface ReferenceSellerOptions {
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1 (then only loopback Host/Origin are accepted). */
  host?: string;
  /** SQLite file for tasks, media buys and creatives. Default: in memory (state dies with the process). */
  dbPath?: string;
  /**
   * Shared task store instead of the SQLite file: a `postgres://` URL (several seller processes
   * then share tasks). Media buys and creatives stay in `dbPath` (or memory).
   */
  storeUrl?: string;
  /** How fast a media buy moves `submitted` -> `working` -> `completed`. */
  timings?: Partial<SellerTimings>;
  /** Sends the AdCP webhooks; default: none are sent until one is given. */
  sendWebhook?: WebhookSend;
  /** Task store limits (TTL clamp, poll interval, per-owner creation rate limit). */
  taskPolicy?: Partial<TaskPolicy>;
  /** Maps a request to its principal (`null` refuses it). Default: everyone is `anonymous`. */
  authenticate?: (req: IncomingMessage) => string | null | Promise<string | null>;
  name?: string;
}

/**
 * Starts the reference seller (MCP at `/mcp`, A2A at `/a2a`, cards under `/.well-known/`):
 * a deterministic catalog, async media buys with webhooks, creatives, delivery, task polling,
 * and failures on demand (`x-adcp-fail` header, or `[rate-limit-once]`, `[rate-limit]`, `[fail]`
 * in a brief; `[reject]` in a `buyer_ref` fails the media buy in review).
 */
export async function startReferenceSeller(options: ReferenceSellerOptions = {}): Promise<ListeningAdcpServer> {
  const path = options.dbPath ?? ':memory:';
  const timings: SellerTimings = { workingAfterMs: 500, completeAfterMs: 2000, ...options.timings };
  if (timings.completeAfterMs < timings.workingAfterMs) {
    throw new RangeError('startReferenceSeller: timings.completeAfterMs must be at least workingAfterMs');
  }
  const policy = { pollIntervalMs: 500, ...options.taskPolicy };
  let store: TaskStore;
  let closeStore: () => Promise<void>;
  if (options.storeUrl !== undefined) {
    const { openStoresFromUrl } = await import('../store/pg-open-stores.js');
    const opened = await openStoresFromUrl({ url: options.storeUrl, env: {}, taskPolicy: policy });
    store = opened.tasks;
    closeStore = () => opened.close();
  } else {
    store = createSqliteTaskStore({ path, policy });
    closeStore = () => store.close();
  }
  const db = openSellerDb(path);
  const server = createAdcpServer({
    name: options.name ?? 'adcp-wire reference seller',
    description: 'A deterministic AdCP media-buy seller for demos and tests.',
    tools: sellerTools({ db, timings, fault: createFaultInjector(), now: Date.now }),
    store,
    cardMeta: { protocols_supported: ['media_buy'], extensions_supported: [] },
    ...(options.sendWebhook === undefined ? {} : { sendWebhook: options.sendWebhook }),
    ...(options.authenticate === undefined ? {} : { authenticate: options.authenticate }),
  });
  let listening: ListeningAdcpServer;
  try {
    listening = await server.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
  } catch (error) {
    await server.close();
    await closeStore();
    db.close();
    throw error;
  }
  return {
    ...listening,
    async close() {
      await listening.close();
      await closeStore();
      db.close();
    },
  };
}
