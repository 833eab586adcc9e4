import type { ReadableStreamReadResult } from 'node:stream/web';
export interface CapOptions {
  maxBytes: number;
  /** Builds the error the stream fails with once past the cap (`seen`: bytes counted). */
  onOverflow: (seen: number) => Error;
  /**
   * Count bytes per Server-Sent Event (reset at each blank line) instead of per body: for
   * long-lived GET streams that carry many messages, where one message is the unit to cap.
   */
  perEvent?: boolean;
  /** Called once when the body ends: cleanly, cancelled, over the cap, or with the read error. */
  onEnd?: (readError?: unknown) => void;
  /**
   * Sees each chunk passed on (within the cap), and the clean end before the stream closes: what
   * would otherwise need a TransformStream (and a pipe) of its own after this stream.
   */
  watch?: { chunk(bytes: Uint8Array): void; end(): void };
}

/**
 * Reads a fetch `Request` or `Response` body whole, up to `maxBytes`: a declared
 * `content-length` over the cap is refused before reading; a body that grows past it is refused
 * as soon as it does, the rest never read (the stream is cancelled). A failed read rejects.
 */
export async function readCappedBody(message: Request | Response, maxBytes: number): Promise<Buffer | 'too_large'> {
  const declared = Number(message.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await message.body?.cancel().catch(() => undefined);
    return 'too_large';
  }
  if (message.body === null) return Buffer.alloc(0);
  const reader = message.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return 'too_large';
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/**
 * Wraps a response body so that it errors as soon as more than `maxBytes` bytes have arrived,
 * without reading (or buffering) the rest: the source is cancelled, which closes the connection.
 */
export function capBody(body: ReadableStream<Uint8Array>, options: CapOptions): ReadableStream<Uint8Array> {
  const { maxBytes, onOverflow, perEvent = false, watch } = options;
  let ended = false;
  const onEnd = (readError?: unknown): void => {
    if (ended) return;
    ended = true;
    options.onEnd?.(readError);
  };
  const reader = body.getReader();
  let seen = 0;
  const events: EventCount = { seen: 0, previousLf: false };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (error) {
          onEnd(error);
          throw error;
        }
        const { done, value } = chunk;
        if (done) {
          watch?.end();
          onEnd();
          controller.close();
          return;
        }
        if (perEvent) {
          const largest = countEvents(value, events);
          if (largest > maxBytes) return fail(controller, largest);
        } else {
          seen += value.byteLength;
          if (seen > maxBytes) return fail(controller, seen);
        }
        watch?.chunk(value);
        controller.enqueue(value);
      },
      cancel(reason) {
        onEnd();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );

  function fail(controller: ReadableStreamDefaultController<Uint8Array>, bytes: number): void {
    const error = onOverflow(bytes);
    onEnd();
    controller.error(error);
    void reader.cancel(error).catch(() => undefined);
  }
}

/** Per-event byte count carried across chunks. */
interface EventCount {
  seen: number;
  previousLf: boolean;
}

/**
 * Adds `chunk` to the current SSE event and returns the largest event size reached inside it.
 * An event ends at LF LF (CR LF CR LF too: CRs are counted as ordinary bytes and do not break
 * the pair).
 */
function countEvents(chunk: Uint8Array, state: EventCount): number {
  let largest = state.seen;
  for (let i = 0; i < chunk.length; i++) {
    const b = chunk[i];
    state.seen++;
    if (b === 0x0a) {
      if (state.previousLf) {
        if (state.seen > largest) largest = state.seen;
        state.seen = 0;
        state.previousLf = false;
        continue;
      }
      state.previousLf = true;
    } else if (b !== 0x0d) {
      state.previousLf = false;
    }
  }
  return state.seen > largest ? state.seen : largest;
}
