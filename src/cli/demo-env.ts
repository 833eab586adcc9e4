import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWebhookListener, type ListenerEvent, type WebhookListener } from './webhook-listener.js';
import type { ReferenceSeller } from '../seller/start-reference-seller.js';
import { peerInstalled } from '../store/require-peer.js';

/** Everything the demo starts, stopped together by `close()`. */
export interface DemoEnv {
  /** The temporary folder holding the SQLite files (and the seller's JWKS); removed by `close()`. */
  dir: string;
  /** Where the state is: SQLite files in `dir`, or in memory when `better-sqlite3` is not installed. */
  state: 'sqlite' | 'memory';
  seller: ReferenceSeller;
  receiver: WebhookListener;
  /** Every verified webhook, in arrival order. */
  events: ListenerEvent[];
  close(): Promise<void>;
}

/**
 * Starts the reference seller (MCP and A2A) and a webhook receiver that verifies the seller's
 * RFC 9421 signatures, on loopback, each with SQLite state in a fresh temporary folder. Whatever started is stopped if a later part fails.
 */
export async function startDemoEnv(onEvent: (event: ListenerEvent) => void): Promise<DemoEnv> {
  const dir = await mkdtemp(join(tmpdir(), 'adcp-demo-'));
  const stops: (() => Promise<void>)[] = [() => rm(dir, { recursive: true, force: true })];
  const close = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  // Without the optional SQLite driver the demo keeps its state in memory (decision 0167).
  const state = peerInstalled('better-sqlite3') ? 'sqlite' : 'memory';
  try {
    const { startReferenceSeller } = await import('../seller/index.js');
    // The seller's own emitter signs webhooks (RFC 9421, with a fresh Ed25519 key); loopback
    // http destinations are allowed because it listens on loopback.
    const seller = await startReferenceSeller({
      port: 0,
      host: '127.0.0.1',
      dbPath: state === 'sqlite' ? join(dir, 'seller.db') : ':memory:',
      timings: { workingAfterMs: 400, completeAfterMs: 1200 },
    });
    stops.push(async () => {
      await seller.close();
    });
    // The buyer trusts the seller's published key, as it would from the seller's brand.json.
    const jwksPath = join(dir, 'seller-jwks.json');
    await writeFile(jwksPath, JSON.stringify(seller.webhookJwks));
    const events: ListenerEvent[] = [];
    const receiver = await startWebhookListener({
      port: 0,
      host: '127.0.0.1',
      cwd: dir,
      jwksPath,
      storeUrl: state === 'sqlite' ? join(dir, 'buyer.db') : ':memory:',
      onEvent: (event) => {
        events.push(event);
        onEvent(event);
      },
    });
    stops.push(() => receiver.close());
    return { dir, state, seller, receiver, events, close };
  } catch (error) {
    await close();
    throw error;
  }
}
