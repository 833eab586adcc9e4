import type { IncomingMessage } from 'node:http';

/**
 * Reads a `node:http` request body up to `maxBytes`: a declared `content-length` over the cap is
 * refused before reading; past the cap the stream is paused and nothing more is kept. Rejects
 * when the request fails or closes before its end (the client went away).
 */
export function readNodeBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > maxBytes) {
      resolve('too_large');
      return;
    }
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const settle = (outcome: Buffer | 'too_large' | Error): void => {
      if (settled) return;
      settled = true;
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > maxBytes) {
        req.off('data', onData);
        req.pause();
        chunks.length = 0;
        settle('too_large');
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => settle(total > maxBytes ? 'too_large' : Buffer.concat(chunks, total)));
    req.once('error', (error) => settle(error));
    req.once('close', () => settle(new Error('the request closed before its body ended')));
  });
}
