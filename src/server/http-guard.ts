import type { IncomingMessage } from 'node:http';

/** Host names a loopback listener accepts (DNS-rebinding protection). */
export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1'] as const;

/** True for a loopback listen address. */
export function isLoopbackAddress(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function hostnameOf(value: string): string | undefined {
  try {
    return new URL(`http://${value}`).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Refuses a request whose `Host`, or `Origin` when present, names a host outside `allowed`
 * (a DNS-rebinding page reaches a loopback server with a foreign Host/Origin). Returns the reason,
 * or undefined when the request may pass. `allowed` undefined lets every host through.
 */
export function checkHostAndOrigin(req: IncomingMessage, allowed: ReadonlySet<string> | undefined): string | undefined {
  if (allowed === undefined) return undefined;
  const host = req.headers.host;
  const hostname = typeof host === 'string' ? hostnameOf(host) : undefined;
  if (hostname === undefined || !allowed.has(hostname)) return 'Host not allowed';
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let originHost: string | undefined;
    try {
      originHost = new URL(origin).hostname.replace(/^\[|\]$/g, '').toLowerCase();
    } catch {
      originHost = undefined;
    }
    if (originHost === undefined || !allowed.has(originHost)) return 'Origin not allowed';
  }
  return undefined;
}

export type BodyRead = { ok: true; text: string } | { ok: false; reason: 'too_large' | 'invalid_utf8' | 'aborted' };

/** Refuses malformed UTF-8 instead of replacing it with U+FFFD; keeps a BOM (JSON then refuses it). */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads a request body up to `maxBytes`: a declared Content-Length over it is refused from the
 * header, before any byte is read; a body that grows over it stops being buffered at once; bytes
 * that are not well-formed UTF-8 are refused (`invalid_utf8`), never replaced.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      resolve({ ok: false, reason: 'too_large' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: BodyRead) => {
      if (done) return;
      done = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        finish({ ok: false, reason: 'too_large' });
        req.pause();
        return;
      }
      if (!done) chunks.push(chunk);
    });
    req.on('end', () => {
      let text: string;
      try {
        text = utf8.decode(Buffer.concat(chunks));
      } catch {
        finish({ ok: false, reason: 'invalid_utf8' });
        return;
      }
      finish({ ok: true, text });
    });
    req.on('error', () => finish({ ok: false, reason: 'aborted' }));
    req.on('close', () => finish({ ok: false, reason: 'aborted' }));
  });
}
