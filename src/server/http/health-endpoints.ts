import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readiness } from './readiness.js';

/** Where a load balancer or an orchestrator probes a server (unauthenticated, no body read). */
export const HEALTH_PATHS = { health: '/healthz', ready: '/readyz' } as const;

/** True for a probe path: these are answered before Host checks and authentication. */
export function isHealthPath(path: string): boolean {
  return path === HEALTH_PATHS.health || path === HEALTH_PATHS.ready;
}

/**
 * Answers `/healthz` (the process is alive and serving HTTP: always 200) and `/readyz` (200 when
 * it should get traffic, else 503 with a one-word reason). GET or HEAD; anything else is 405.
 * The bodies say nothing else: no version, no store address, no error text.
 */
export async function serveHealth(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  readiness: Readiness,
): Promise<void> {
  const head = req.method === 'HEAD';
  if (req.method !== 'GET' && !head) {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    res.writeHead(405, {
      allow: 'GET, HEAD',
      'content-type': 'application/json',
      ...(hasBody ? { connection: 'close' } : {}),
    });
    res.end(JSON.stringify({ error: 'Method not allowed: probe with GET or HEAD' }));
    return;
  }
  const [status, body] =
    path === HEALTH_PATHS.health
      ? [200, { status: 'ok' }]
      : await readiness.state().then((state) => [state.ready ? 200 : 503, state] as const);
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
    // A draining server asks the balancer's connection to go elsewhere.
    ...(readiness.phase === 'draining' ? { connection: 'close' } : {}),
  });
  res.end(head ? undefined : text);
}
