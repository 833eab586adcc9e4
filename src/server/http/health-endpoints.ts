import type { IncomingMessage } from 'node:http';
import type { Answer } from './answer.js';
import type { Readiness } from './readiness.js';

/** Where a load balancer or an orchestrator probes a server (unauthenticated, no body read). */
export const HEALTH_PATHS = { health: '/healthz', ready: '/readyz' } as const;

/** True for a probe path: these are answered before Host checks and authentication. */
export function isHealthPath(path: string): boolean {
  return path === HEALTH_PATHS.health || path === HEALTH_PATHS.ready;
}

/**
 * The answer to `/healthz` (the process is alive and serving HTTP: always 200) and `/readyz` (200
 * when it should get traffic, else 503 with a one-word reason). GET or HEAD (node sends no body to
 * a HEAD); anything else is 405. The bodies say nothing else: no version, no store address, no
 * error text.
 */
export async function healthAnswer(req: IncomingMessage, path: string, readiness: Readiness): Promise<Answer> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return {
      status: 405,
      headers: { allow: 'GET, HEAD' },
      body: { error: 'Method not allowed: probe with GET or HEAD' },
      connection: 'close-if-unread',
    };
  }
  const [status, body] =
    path === HEALTH_PATHS.health
      ? [200, { status: 'ok' }]
      : await readiness.state().then((state) => [state.ready ? 200 : 503, state] as const);
  return {
    status,
    headers: { 'cache-control': 'no-store', 'content-length': String(Buffer.byteLength(JSON.stringify(body))) },
    body,
    // A draining server asks the balancer's connection to go elsewhere.
    ...(readiness.phase === 'draining' ? { connection: 'close' as const } : {}),
  };
}
