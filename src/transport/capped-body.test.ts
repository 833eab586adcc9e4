import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { capBody, readCappedBody } from './capped-body.js';

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

/** Splits `bytes` at the given cut points. */
function cut(bytes: Uint8Array, points: number[]): Uint8Array[] {
  const sorted = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const p of sorted) {
    out.push(bytes.subarray(from, p));
    from = p;
  }
  out.push(bytes.subarray(from));
  return out;
}

async function outcome(body: ReadableStream<Uint8Array>): Promise<'ok' | 'overflow'> {
  try {
    await new Response(body).arrayBuffer();
    return 'ok';
  } catch (error) {
    if (error instanceof RangeError) return 'overflow';
    throw error;
  }
}

/** Largest SSE event in bytes, an event ending at LF LF (its terminator counted). */
function largestEvent(text: string): number {
  let largest = 0;
  for (const event of text.split(/(?<=\n\r?\n)/)) largest = Math.max(largest, new TextEncoder().encode(event).length);
  return largest;
}

const sseText = fc
  .array(fc.record({ data: fc.string({ maxLength: 60 }), crlf: fc.boolean() }), { maxLength: 8 })
  .map((events) => events.map((e) => (e.crlf ? `data: ${e.data}\r\n\r\n` : `data: ${e.data}\n\n`)).join(''));

describe('capBody', () => {
  it('passes a body within the cap through unchanged', async () => {
    const text = await new Response(
      capBody(streamOf([new TextEncoder().encode('hello')]), { maxBytes: 5, onOverflow: () => new RangeError('x') }),
    ).text();
    assert.equal(text, 'hello');
  });

  it('errors once the whole body passes the cap, however it is chunked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.nat({ max: 220 }),
        async (bytes, points, cap) => {
          const got = await outcome(
            capBody(streamOf(cut(bytes, points)), { maxBytes: cap, onOverflow: () => new RangeError('over') }),
          );
          assert.equal(got, bytes.length > cap ? 'overflow' : 'ok');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('caps each SSE event, not the stream, in per-event mode', async () => {
    await fc.assert(
      fc.asyncProperty(
        sseText,
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.integer({ min: 8, max: 120 }),
        async (text, points, cap) => {
          const bytes = new TextEncoder().encode(text);
          const got = await outcome(
            capBody(streamOf(cut(bytes, points)), {
              maxBytes: cap,
              onOverflow: () => new RangeError('over'),
              perEvent: true,
            }),
          );
          assert.equal(got, largestEvent(text) > cap ? 'overflow' : 'ok');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('calls onEnd exactly once when the body ends', async () => {
    let ends = 0;
    await new Response(
      capBody(streamOf([new Uint8Array(3)]), {
        maxBytes: 10,
        onOverflow: () => new RangeError('x'),
        onEnd: () => ends++,
      }),
    ).arrayBuffer();
    assert.equal(ends, 1);
  });
});

describe('readCappedBody', () => {
  const bytes = (n: number) => new Uint8Array(n).fill(0x61);

  it('reads a body at the cap whole', async () => {
    const body = await readCappedBody(new Response(streamOf([bytes(4), bytes(6)])), 10);
    assert.ok(body !== 'too_large');
    assert.equal(body.toString('utf8'), 'a'.repeat(10));
  });

  it('refuses a body that grows past the cap, without reading the rest', async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(bytes(8));
      },
    });
    assert.equal(await readCappedBody(new Response(endless), 20), 'too_large');
    assert.ok(pulled <= 5, `pulled ${pulled} chunks`);
  });

  it('refuses a declared content-length over the cap before reading', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(bytes(1));
      },
    });
    const response = new Response(body, { headers: { 'content-length': '1000' } });
    assert.equal(await readCappedBody(response, 999), 'too_large');
    assert.ok(pulled <= 1, `pulled ${pulled} chunks`);
  });

  it('reads an empty body as no bytes', async () => {
    const body = await readCappedBody(new Request('http://127.0.0.1/', { method: 'POST' }), 10);
    assert.deepEqual(body, Buffer.alloc(0));
  });
});
