import type { Connection } from './connection-flags.js';
import { openClient } from './open-client.js';
import type { DiscoveryView } from './render-discovery.js';
import type { DiscoverResult } from '../client/discover.js';
import type { JsonObject } from '../core/types.js';
import { AdcpWireError } from '../core/wire-error.js';
import { JWKS_NOT_A_CARD } from '../a2a/discover-card.js';
import { chooseRelease, releasesUpTo } from '../client/negotiate-release.js';
import { DEFAULT_RELEASE } from '../schemas/select-release.js';

/** Reads what an agent says about itself, as the discover report shows it. */
const CARD_BYTES = 256 * 1024;

export type OpenDiscovery = (connection: Connection) => Promise<DiscoveryView>;

export const openDiscovery: OpenDiscovery = async (connection) => {
  const client = await openClient(connection);
  try {
    const found = await client.discover({ timeoutMs: connection.timeoutMs });
    if (found.card.card === undefined && found.tools === undefined && found.capabilities === undefined) {
      // Nothing at all came back: that is an unreachable agent, not an empty one.
      const why = found.toolsProblem ?? found.capabilitiesProblem ?? found.card.problem ?? 'no answer';
      throw new AdcpWireError('network', `nothing answered at ${connection.url}: ${why}`, { url: connection.url });
    }
    const view = toDiscoveryView(connection.url, found);
    view.cards.push(await otherCard(connection, found.protocol));
    return view;
  } finally {
    await client.close().catch(() => undefined);
  }
};

/** Maps the client's DiscoverResult to the report's rows (no sanitising here: the renderer does it). */
export function toDiscoveryView(url: string, found: DiscoverResult): DiscoveryView {
  const card = found.card;
  const entry = cardRow(
    found.protocol === 'mcp' ? 'MCP server card' : 'A2A agent card',
    card.url,
    card.card,
    card.problem,
  );
  const view: DiscoveryView = { url, protocol: found.protocol, cards: [entry], tools: [] };
  if (found.adcpMeta !== undefined) {
    view.cards.push({ kind: 'AdCP card block', meta: found.adcpMeta });
  }
  const caps = found.capabilities;
  if (caps?.status === 'completed' && caps.data !== undefined) {
    view.capabilities = caps.data;
    // What AdcpClient would speak with this agent (its default pin), by the same rule.
    const chosen = chooseRelease(DEFAULT_RELEASE, caps.data);
    view.adcp = {
      ...(chosen.release === undefined ? {} : { release: chosen.release }),
      ours: releasesUpTo(DEFAULT_RELEASE),
      theirs: chosen.theirs,
    };
  } else if (caps !== undefined) {
    view.capabilitiesProblem = `get_adcp_capabilities answered ${caps.status}${'error' in caps && caps.error ? ` (${caps.error.code})` : ''}`;
  } else view.capabilitiesProblem = found.capabilitiesProblem ?? 'not reported';
  view.tools = (found.tools ?? []).map((tool) => {
    const row: DiscoveryView['tools'][number] = { name: tool.name };
    if (tool.taskSupport !== undefined) row.taskSupport = tool.taskSupport;
    if (tool.description !== undefined) row.description = tool.description;
    return row;
  });
  if (found.mcp !== undefined) view.mcp = found.mcp;
  else if (found.mcpProblem !== undefined) view.mcpProblem = found.mcpProblem;
  if (found.toolsProblem !== undefined && view.tools.length === 0)
    view.tools.push({ name: '(tools unavailable)', description: found.toolsProblem });
  // Usable: the capabilities, or a tool list from an agent that did not refuse them (one without the tool).
  if (caps !== undefined && (caps.status === 'failed' || caps.status === 'rejected'))
    view.unusable = { refused: true, reason: view.capabilitiesProblem ?? caps.status };
  else if (view.capabilities === undefined && found.tools === undefined)
    view.unusable = { refused: false, reason: found.toolsProblem ?? view.capabilitiesProblem ?? 'no answer' };
  return view;
}

/** The card of the other wire at the same agent (an MCP seller may also speak A2A, and back). */
async function otherCard(connection: Connection, protocol: 'mcp' | 'a2a'): Promise<DiscoveryView['cards'][number]> {
  const other = protocol === 'mcp' ? 'a2a' : 'mcp';
  const kind = other === 'mcp' ? 'MCP server card' : 'A2A agent card';
  const headers = { ...connection.headers };
  if (connection.auth !== undefined) headers['authorization'] = `Bearer ${connection.auth}`;
  const { createTransport } = await import('../client/create-transport.js');
  const transport = await createTransport(other, {
    url: connection.url,
    headers,
    maxBytes: CARD_BYTES,
    ...(connection.credentialOrigins !== undefined ? { credentialOrigins: connection.credentialOrigins } : {}),
  });
  try {
    const card = await transport.readCard({ maxBytes: CARD_BYTES, signal: AbortSignal.timeout(connection.timeoutMs) });
    return cardRow(kind, card.url, card.card, card.problem);
  } catch {
    return { kind, problem: 'none found' };
  } finally {
    await transport.close().catch(() => undefined);
  }
}

function cardRow(
  kind: string,
  url: string | undefined,
  body: JsonObject | undefined,
  problem: string | undefined,
): DiscoveryView['cards'][number] {
  // A URL that serves a key set (a JWKS URL given by mistake) is not any kind of card.
  const entry: DiscoveryView['cards'][number] = { kind: problem === JWKS_NOT_A_CARD ? 'JWK Set' : kind };
  if (url !== undefined) entry.url = url;
  const name = text(body?.['title']) ?? text(body?.['name']);
  if (name !== undefined) entry.name = name;
  const version = text(body?.['version']);
  if (version !== undefined) entry.version = version;
  if (problem !== undefined) entry.problem = problem;
  else if (body === undefined) entry.problem = 'none found';
  return entry;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
