import { AdcpWireError } from '../core/wire-error.js';
import { describe, type WireContext } from './wire-context.js';
import { fetchFailure } from './fetch-failure.js';
import { capBody } from '../transport/capped-body.js';
import type { ReadableStreamReadResult } from 'node:stream/web';

/**
 * Yields the body of `response` chunk by chunk and throws `response_too_large` as soon as more
 * than `maxBytes` bytes have arrived (the rest is never read: the stream is cancelled). A
 * `content-length` over the cap is refused before reading anything.
 */
export async function* readCappedChunks(
  response: Response,
  maxBytes: number,
  ctx: WireContext,
): AsyncGenerator<Uint8Array> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(maxBytes, ctx);
  }
  if (response.body === null) return;
  const reader = capBody(response.body, { maxBytes, onOverflow: () => tooLarge(maxBytes, ctx) }).getReader();
  let done = false;
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (error) {
        // Over the cap (already an AdcpWireError), an abort, or a broken connection mid-body.
        throw fetchFailure(error, ctx.signal, ctx);
      }
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    // Reached on normal end, on the cap, and when the consumer stops early (return/throw).
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * Reads the whole body as UTF-8 text, refusing more than `maxBytes` bytes while reading. A body
 * whose uncompressed `content-length` is within the cap cannot grow past it (HTTP framing ends it
 * there), so it is read in one go; any other body is counted chunk by chunk.
 */
export async function readCappedText(response: Response, maxBytes: number, ctx: WireContext): Promise<string> {
  const length = response.headers.get('content-length');
  const encoding = response.headers.get('content-encoding');
  if (
    length !== null &&
    /^\d{1,15}$/.test(length) &&
    Number(length) <= maxBytes &&
    (encoding === null || encoding === 'identity')
  ) {
    try {
      return await response.text();
    } catch (error) {
      throw fetchFailure(error, ctx.signal, ctx);
    }
  }
  const decoder = new TextDecoder('utf-8');
  let text = '';
  for await (const chunk of readCappedChunks(response, maxBytes, ctx)) {
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

function tooLarge(maxBytes: number, ctx: WireContext): AdcpWireError {
  return new AdcpWireError('response_too_large', `A2A response from ${describe(ctx)} is over ${maxBytes} bytes`, {
    url: ctx.url,
    ...(ctx.tool === undefined ? {} : { tool: ctx.tool }),
  });
}
