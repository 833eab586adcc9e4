import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWebhookListener, type ListenerEvent, type WebhookListener } from './webhook-listener.js';
import type { ListeningAdcpServer } from '../server/create-adcp-server.js';
import type { JsonObject } from '../core/types.js';

/** Everything the demo starts, stopped together by `close()`. */
export interface DemoEnv {
  /** The temporary folder holding the SQLite files; removed by `close()`. */
  dir: string;
  seller: ListeningAdcpServer;
  receiver: WebhookListener;
  /** The shared secret of the webhooks (HMAC-SHA256, legacy scheme). */
  secret: string;
  /** Every verified webhook, in arrival order. */
  events: ListenerEvent[];
  close(): Promise<void>;
}

/**
 * Starts the reference seller (MCP and A2A) and a verifying webhook receiver on loopback, each
 * with SQLite state in a fresh temporary folder. Whatever started is stopped if a later part fails.
 */
export async function startDemoEnv(onEvent: (event: ListenerEvent) => void): Promise<DemoEnv> {
  const dir = await mkdtemp(join(tmpdir(), 'adcp-demo-'));
  const stops: (() => Promise<void>)[] = [() => rm(dir, { recursive: true, force: true })];
  const close = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    const secret = randomBytes(32).toString('hex');
    const events: ListenerEvent[] = [];
    const receiver = await startWebhookListener({
      port: 0,
      host: '127.0.0.1',
      cwd: dir,
      secret,
      storeUrl: join(dir, 'buyer.db'),
      onEvent: (event) => {
        events.push(event);
        onEvent(event);
      },
    });
    stops.push(() => receiver.close());
    const [{ startReferenceSeller }, sendWebhook] = await Promise.all([import('../seller/index.js'), webhookSender()]);
    const seller = await startReferenceSeller({
      port: 0,
      host: '127.0.0.1',
      dbPath: join(dir, 'seller.db'),
      timings: { workingAfterMs: 400, completeAfterMs: 1200 },
      sendWebhook,
    });
    stops.push(() => seller.close());
    return { dir, seller, receiver, secret, events, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The seller side of webhooks: the library's emitter, allowed to post to loopback http. */
async function webhookSender(): Promise<(config: JsonObject, payload: JsonObject) => Promise<void>> {
  const { createWebhookEmitter } = await import('../webhooks/create-webhook-emitter.js');
  const emitter = createWebhookEmitter({ allowInsecureUrls: true, maxAttempts: 3, baseDelayMs: 200, timeoutMs: 5000 });
  return async (config, payload) => {
    const outcome = await emitter.deliver(config as unknown as Parameters<typeof emitter.deliver>[0], payload);
    if (!outcome.ok) throw new Error(`webhook not delivered (${outcome.reason})`);
  };
}
