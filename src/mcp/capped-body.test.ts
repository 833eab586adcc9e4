import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { capBody } from './capped-body.js';

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
