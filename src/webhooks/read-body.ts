import type { IncomingMessage } from 'node:http';

/**
 * Reads a fetch `Request` (or `Response`) body up to `maxBytes`, refusing (without buffering the
 * rest) as soon as the declared length or the bytes read pass the cap.
 */
export async function readRequestBody(request: Request | Response, maxBytes: number): Promise<Buffer | 'too_large'> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) return 'too_large';
  if (request.body === null) return Buffer.alloc(0);
  const reader = request.body.getReader();
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

/** Same for a `node:http` request; past the cap the stream is paused and nothing more is kept. */
export function readNodeBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > maxBytes) {
      resolve('too_large');
      return;
    }
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > maxBytes) {
        req.off('data', onData);
        req.pause();
        chunks.length = 0;
        resolve('too_large');
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(total > maxBytes ? 'too_large' : Buffer.concat(chunks, total)));
    req.once('error', reject);
  });
}
