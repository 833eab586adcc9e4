import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { startWebhookListener, type WebhookListener } from '../../src/cli/webhook-listener.js';

// Issue 10 item 8: `adcp webhooks listen` held ~1 MB per stalled body for ~300 s, with no cap on
// how many: 300 slow sockets took RSS from 85 to 373 MB, before any signature check. Header and
// body deadlines close slow sockets in seconds; past a cap of bodies in flight, new requests get
// 503 + Retry-After at once. Every probe here is bounded in sockets and in time.

const SECRET = 'k3Jx9Qw2Lm8Vb5Nc7Zt1Ry4Hs6Pd0Fg3Aa9Ee2Uu5Ii8Oo1';
const CAP = 8;

interface Probe {
  socket: Socket;
  /** Resolves with what the listener sent and when the socket closed (ms after opening). */
  closed: Promise<{ text: string; afterMs: number }>;
}

function open(port: number, first: string): Probe {
  const socket = connect(port, '127.0.0.1');
  const started = Date.now();
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => undefined);
  socket.write(first);
  const closed = new Promise<{ text: string; afterMs: number }>((resolve) =>
    socket.once('close', () => resolve({ text, afterMs: Date.now() - started })),
  );
  return { socket, closed };
}

/** A POST that declares a large body and sends only its first kilobyte. */
const stalledBody = (): string =>
  'POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
  `Content-Length: 900000\r\n\r\n{"pad":"${'x'.repeat(1024)}`;

describe('adcp webhooks listen under slow and stalled clients', () => {
  let listener: WebhookListener;
  let port = 0;
  const probes: Probe[] = [];
  before(async () => {
    listener = await startWebhookListener({
      port: 0,
      host: '127.0.0.1',
      cwd: process.cwd(),
      secret: SECRET,
      headersTimeoutMs: 1000,
      bodyTimeoutMs: 1500,
      maxPendingBodies: CAP,
      onEvent: () => undefined,
    });
    port = Number(new URL(listener.url).port);
  });
  after(async () => {
    for (const probe of probes) probe.socket.destroy();
    await listener.close();
  });

  it(
    'answers 503 with Retry-After past the cap of bodies in flight, and closes stalled bodies by the deadline',
    { timeout: 15_000 },
    async () => {
      const stalled = Array.from({ length: CAP }, () => open(port, stalledBody()));
      probes.push(...stalled);
      await new Promise((resolve) => setTimeout(resolve, 200)); // let the listener take them in
      const extra = Array.from({ length: 4 }, () => open(port, stalledBody()));
      probes.push(...extra);
      const refused = await Promise.all(extra.map((p) => p.closed));
      for (const answer of refused) {
        assert.match(answer.text, /^HTTP\/1\.1 503 /, answer.text);
        assert.match(answer.text, /\r\nretry-after: \d+\r\n/i);
        assert.ok(answer.afterMs < 1000, `refused after ${answer.afterMs} ms`);
      }
      const ended = await Promise.all(stalled.map((p) => p.closed));
      for (const answer of ended) assert.ok(answer.afterMs < 4000, `stalled body held ${answer.afterMs} ms`);
    },
  );

  it('closes a client that never finishes its headers by the header deadline', { timeout: 15_000 }, async () => {
    const slow = open(port, 'POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    probes.push(slow);
    const { afterMs } = await slow.closed;
    assert.ok(afterMs < 4000, `half-sent headers held ${afterMs} ms`);
  });

  it('takes new deliveries again once the stalled ones are gone', { timeout: 15_000 }, async () => {
    const response = await fetch(listener.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    await response.body?.cancel();
    assert.notEqual(response.status, 503);
    assert.equal(response.status, 401); // no signature: refused by the check, not by the cap
  });
});
