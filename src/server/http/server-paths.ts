import { HEALTH_PATHS } from './health-endpoints.js';

/** Paths served under the server's root. */
export const ADCP_SERVER_PATHS = {
  mcp: '/mcp',
  a2a: '/a2a',
  /** The A2A interface for callers that do not activate the AdCP profile (`{ skill, parameters }`). */
  a2aLegacy: '/a2a/legacy',
  a2aLegacyCard: '/a2a/legacy/.well-known/agent-card.json',
  a2aLegacyCardAlt: '/a2a/legacy/.well-known/agent.json',
  agentCard: '/.well-known/agent-card.json',
  agentCardLegacy: '/.well-known/agent.json',
  serverCard: '/.well-known/mcp.json',
  serverCardAlt: '/.well-known/server.json',
  jwks: '/.well-known/jwks.json',
  brandJson: '/.well-known/brand.json',
  /** Liveness probe: 200 while the process serves HTTP. */
  health: HEALTH_PATHS.health,
  /** Readiness probe: 200 when the server should get traffic, else 503 (`health` option). */
  ready: HEALTH_PATHS.ready,
} as const;

/** The endpoints a request may be admitted to (see `admission.ts`). */
export type Endpoint = 'mcp' | 'a2a' | 'a2aLegacy';

/** The endpoint a path names, or undefined. */
export function endpointAt(path: string): Endpoint | undefined {
  if (path === ADCP_SERVER_PATHS.mcp) return 'mcp';
  if (path === ADCP_SERVER_PATHS.a2a) return 'a2a';
  if (path === ADCP_SERVER_PATHS.a2aLegacy) return 'a2aLegacy';
  return undefined;
}

/**
 * The agent card's paths: at the origin and under the A2A base URL, since A2A clients look for
 * the card under whatever URL they were given (`{url}/.well-known/agent-card.json`).
 */
export function isAgentCardPath(path: string): boolean {
  const under = path.startsWith(`${ADCP_SERVER_PATHS.a2a}/`) ? path.slice(ADCP_SERVER_PATHS.a2a.length) : path;
  return under === ADCP_SERVER_PATHS.agentCard || under === ADCP_SERVER_PATHS.agentCardLegacy;
}
