import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readNodeBody } from '../transport/read-node-body.js';

/** One delivery the receiver took. */
export interface Delivery {
  /** The capture id of the URL it was posted to (one per triggering step). */
  capture: string;
  headers: Record<string, string>;
  body: unknown;
  /** The body as received, when it was not JSON. */
  text?: string;
  /** The body's bytes as UTF-8 text (what a signature's content-digest covers). */
  raw: string;
  /** The URL the agent posted to, as the receiver handed it out (a signature's @target-uri). */
  url: string;
  /** The HTTP status the receiver answered (a retry scenario answers 5xx first). */
  answered: number;
  receivedAt: number;
}

/**
 * The runner's webhook receiver (storyboard-schema.yaml, "Webhook receiver"): each triggering
 * step gets its own URL (`{{runner.webhook_url:<step>}}`), whose capture id is random, never
 * the protocol `operation_id`; every POST is answered 204 (or the retry scenario's 5xx) and kept
 * for the `expect_webhook*` steps.
 */
export class WebhookReceiver {
  readonly #server: Server;
  readonly #deliveries: Delivery[] = [];
  readonly #waiters = new Set<() => void>();
  readonly #captures = new Map<string, string>();
  /** capture -> how many deliveries are still to be refused, and with which status. */
  readonly #refusals = new Map<string, { left: number; status: number }>();
  #base = '';

  private constructor(server: Server) {
    this.#server = server;
  }

  /**
   * Listens on `host` (default 127.0.0.1), port `port` (default any). `publicUrl` is the base the
   * agent is told (a tunnel or a reachable address) when it is not the listening address.
   */
  static async start(options: { host?: string; port?: number; publicUrl?: string } = {}): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = createServer((req, res) => {
      void receiver?.take(req.url ?? '/', req.method ?? 'GET', req.headers, req).then((status) => {
        res.writeHead(status).end();
      });
    });
    receiver = new WebhookReceiver(server);
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const listening = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    receiver.#base = `${(options.publicUrl ?? listening).replace(/\/+$/, '')}/webhooks`;
    return receiver;
  }

  /** `{{runner.webhook_base}}`. */
  get base(): string {
    return this.#base;
  }

  /** `{{runner.webhook_url:<key>}}`: the same URL for the same key (the run's step id scope). */
  urlFor(key: string): string {
    let capture = this.#captures.get(key);
    if (capture === undefined) {
      capture = randomUUID();
      this.#captures.set(key, capture);
    }
    return `${this.#base}/${capture}`;
  }

  /**
   * A retry scenario (storyboard-schema.yaml, `expect_webhook_retry_keys_stable`;
   * webhook-receiver-runner.yaml, `retry_replay_contract`): the first `count` deliveries to
   * `urlFor(key)` are answered `status`, the rest 204. Set before the URL is handed out.
   */
  refuseFirst(key: string, count: number, status: number): void {
    this.urlFor(key);
    const capture = this.#captures.get(key) ?? '';
    this.#refusals.set(capture, { left: count, status });
  }

  /** The capture id behind `urlFor(key)`, if that URL was handed out. */
  captureOf(key: string): string | undefined {
    return this.#captures.get(key);
  }

  private async take(
    url: string,
    method: string,
    headers: NodeJS.Dict<string | string[]>,
    req: IncomingMessage,
  ): Promise<number> {
    const match = /^\/webhooks\/([0-9a-f-]{36})$/.exec(url.split('?')[0] ?? '');
    if (method !== 'POST' || match === null) {
      req.resume();
      return 404;
    }
    let read: Buffer | 'too_large';
    try {
      read = await readNodeBody(req, 1024 * 1024);
    } catch {
      return 400;
    }
    if (read === 'too_large') return 413;
    const text = read.toString('utf8');
    const flat: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers))
      if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const capture = match[1] ?? '';
    const refusal = this.#refusals.get(capture);
    let answered = 204;
    if (refusal !== undefined && refusal.left > 0) {
      refusal.left -= 1;
      answered = refusal.status;
    }
    const delivery: Delivery = {
      capture,
      headers: flat,
      body,
      raw: text,
      url: `${this.#base}/${capture}`,
      answered,
      receivedAt: Date.now(),
    };
    if (body === undefined) delivery.text = text.slice(0, 2000);
    this.#deliveries.push(delivery);
    for (const wake of this.#waiters) wake();
    return answered;
  }

  /** Deliveries to `capture` so far. */
  deliveriesTo(capture: string): Delivery[] {
    return this.#deliveries.filter((d) => d.capture === capture);
  }

  /** Waits until `accept` holds for the deliveries to `capture`, or `timeoutMs` passes. */
  async waitFor(
    capture: string,
    accept: (deliveries: Delivery[]) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<Delivery[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const now = this.deliveriesTo(capture);
      if (accept(now) || Date.now() >= deadline || signal?.aborted === true) return now;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.#waiters.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
        this.#waiters.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}
