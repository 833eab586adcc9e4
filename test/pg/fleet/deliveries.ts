// The sender side of the fleet test and benchmark: AdCP MCP webhook envelopes for a set of
// operations (submitted, working, working, then completed or failed), signed with the legacy
// HMAC scheme, delivered with duplicates, concurrent repeats and retries until acknowledged.
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { signWebhookHmac } from '../../../src/webhooks/hmac.js';

export interface FleetEvent {
  key: string;
  operationId: string;
  status: string;
  statusAt: number;
  body: string;
}

export const FLEET_SECRET = 'fleet-test-secret-0123456789abcdef0123456789';
const STEPS = ['submitted', 'working', 'working', 'final'] as const;

/** Four events per operation; even operations complete, odd ones fail. */
export function makeEvents(operations: number, base = Date.now() - 3_600_000): FleetEvent[] {
  const run = randomUUID().slice(0, 8);
  const events: FleetEvent[] = [];
  for (let op = 0; op < operations; op += 1) {
    const operationId = `op-${run}-${op}`;
    STEPS.forEach((step, n) => {
      const status = step === 'final' ? (op % 2 === 0 ? 'completed' : 'failed') : step;
      const statusAt = base + op * 10 + n * 1000;
      const result =
        status === 'completed'
          ? { media_buy_id: `mb-${op}`, packages: [{ package_id: `pkg-${op}` }] }
          : status === 'failed'
            ? { adcp_error: { code: 'POLICY_VIOLATION', message: `op ${op} refused`, recovery: 'correctable' } }
            : { percentage: n * 25 };
      const envelope = {
        idempotency_key: `whk_${randomUUID()}`,
        operation_id: operationId,
        task_id: `task-${run}-${op}`,
        task_type: 'create_media_buy',
        status,
        timestamp: new Date(statusAt).toISOString(),
        result,
      };
      events.push({ key: envelope.idempotency_key, operationId, status, statusAt, body: JSON.stringify(envelope) });
    });
  }
  return events;
}

/** A seeded PRNG (mulberry32), so a failing run can be replayed. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface DeliveryStats {
  deliveries: number;
  attempts: number;
  statuses: Record<string, number>;
  latenciesMs: number[];
}

export interface DeliverOptions {
  url: string;
  concurrency: number;
  seed?: number;
  /** Deliveries per event: 2 at once, then the rest one by one, shuffled among other events (default 5). */
  copies?: number;
  /** Called after every acknowledged delivery with the count so far. */
  onDelivered?: (count: number) => void;
  maxAttempts?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends every event `copies` times: the first two concurrently (a sender's concurrent repeat),
 * the others later (duplicates; half re-sent byte for byte with the same signature, half
 * re-signed as a retry would be). Each delivery is retried on 5xx, 409, 429 and network errors
 * until a 2xx; any other answer throws.
 */
export async function deliverAll(events: FleetEvent[], options: DeliverOptions): Promise<DeliveryStats> {
  const copies = options.copies ?? 5;
  const rand = random(options.seed ?? 7);
  const signed = new Map<string, Record<string, string>>();
  const jobs: { event: FleetEvent; parallel: number; reuseSignature: boolean }[] = [];
  for (const event of events) {
    jobs.push({ event, parallel: Math.min(2, copies), reuseSignature: false });
    for (let c = 2; c < copies; c += 1) jobs.push({ event, parallel: 1, reuseSignature: c % 2 === 0 });
  }
  for (let i = jobs.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rand() * (i + 1));
    [jobs[i], jobs[j]] = [jobs[j] as (typeof jobs)[number], jobs[i] as (typeof jobs)[number]];
  }
  const stats: DeliveryStats = { deliveries: 0, attempts: 0, statuses: {}, latenciesMs: [] };
  const maxAttempts = options.maxAttempts ?? 400;

  const deliverOnce = async (event: FleetEvent, reuseSignature: boolean): Promise<void> => {
    const started = performance.now();
    for (let attempt = 0; attempt < maxAttempts; attempt += 1) {
      let headers = reuseSignature && attempt === 0 ? signed.get(event.key) : undefined;
      if (headers === undefined) {
        headers = signWebhookHmac({ secret: FLEET_SECRET, rawBody: event.body }).headers;
        signed.set(event.key, headers);
      }
      stats.attempts += 1;
      let status: string;
      try {
        const code = await post(options.url, event.body, headers, agent);
        status = String(code);
        if (code >= 200 && code < 300) {
          stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
          stats.deliveries += 1;
          stats.latenciesMs.push(performance.now() - started);
          options.onDelivered?.(stats.deliveries);
          return;
        }
        if (![409, 425, 429].includes(code) && code < 500)
          throw new Error(`delivery of ${event.key} refused with ${status}`);
      } catch (error) {
        if (error instanceof Error && error.message.startsWith('delivery of')) throw error;
        status = 'network';
      }
      stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
      await sleep(Math.min(20 * 2 ** Math.min(attempt, 5), 400) * (0.5 + rand()));
    }
    throw new Error(`delivery of ${event.key} never acknowledged`);
  };

  let next = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency * 2 });
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const job = jobs[next++] as (typeof jobs)[number];
      await Promise.all(Array.from({ length: job.parallel }, () => deliverOnce(job.event, job.reuseSignature)));
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return stats;
}

/** One POST over a keep-alive agent (cheaper than fetch, so the sender is not what is measured). */
function post(url: string, body: string, headers: Record<string, string>, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}
