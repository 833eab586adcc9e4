import type { DiscoverResult } from '../client/discover.js';
import { checkProfileCard } from '../core/a2a-profile-card.js';
import { taskSupportFor } from '../core/tool-table.js';
import type { JsonObject } from '../core/types.js';
import { isPlainObject } from '../core/plain-object.js';
import type { McpServerFacts } from '../transport/transport.js';
import type { AgentView } from './inspector.js';
import type { Exchange } from './wire-log.js';

export interface CardView {
  kind: 'MCP server card' | 'A2A agent card';
  url?: string;
  name?: string;
  version?: string;
  problem?: string;
  card?: JsonObject;
}

/** What the Discover tab shows: everything the agent says about itself, and how it was asked. */
export interface DiscoveryView {
  agent: AgentView;
  protocol?: 'mcp' | 'a2a';
  /** Nothing answered at all (the agent is unreachable). */
  problem?: string;
  cards: CardView[];
  /** The card's AdCP block (MCP server cards). */
  adcpMeta?: JsonObject;
  capabilities?: JsonObject;
  capabilitiesProblem?: string;
  /** The release spoken with the agent, and the lists it was chosen from. */
  release?: string;
  theirReleases: string[];
  mcp?: McpServerFacts;
  mcpProblem?: string;
  /** The A2A agent card against the AdCP A2A profile (v3) advertisement rules. */
  a2aProfile?: { ok: boolean; code?: string; message?: string; required?: boolean };
  /** A2A 1.0 or v0.3, read from the card's interfaces. */
  a2aWire?: string;
  tools: { name: string; description?: string; taskSupport?: string; expectedTaskSupport?: string }[];
  toolsProblem?: string;
  /** Whether credentials are needed: what the card declares and what the answers said (401/403). */
  auth: { sent: boolean; declared: string[]; refused: string[] };
  exchanges: Exchange[];
}

export function describeDiscovery(input: {
  agent: AgentView;
  found?: DiscoverResult;
  problem?: string;
  other?: { protocol: 'mcp' | 'a2a'; url?: string; card?: JsonObject; problem?: string };
  release?: string;
  exchanges: Exchange[];
}): DiscoveryView {
  const { found, agent } = input;
  const view: DiscoveryView = {
    agent,
    cards: [],
    theirReleases: [],
    tools: [],
    auth: { sent: agent.auth, declared: [], refused: [] },
    exchanges: input.exchanges,
  };
  if (input.problem !== undefined) view.problem = input.problem;
  if (found === undefined) return view;
  view.protocol = found.protocol;
  const cards = [{ protocol: found.protocol, ...found.card }, ...(input.other ? [input.other] : [])];
  for (const c of cards) {
    const card: CardView = { kind: c.protocol === 'mcp' ? 'MCP server card' : 'A2A agent card' };
    if (c.url !== undefined) card.url = c.url;
    if (c.card !== undefined) {
      card.card = c.card;
      const name = text(c.card['title']) ?? text(c.card['name']);
      if (name !== undefined) card.name = name;
      const version = text(c.card['version']);
      if (version !== undefined) card.version = version;
    } else card.problem = c.problem ?? 'none found';
    view.cards.push(card);
    if (c.protocol === 'a2a' && c.card !== undefined) {
      const checked = checkProfileCard(c.card);
      view.a2aProfile = checked.ok
        ? { ok: true, required: checked.required }
        : { ok: false, code: checked.code, message: checked.message };
      view.a2aWire = a2aWireOf(c.card);
      view.auth.declared.push(...declaredSchemes(c.card));
    }
  }
  if (found.adcpMeta !== undefined) view.adcpMeta = found.adcpMeta;
  const caps = found.capabilities;
  if (caps?.status === 'completed' && caps.data !== undefined) {
    view.capabilities = caps.data;
    const adcp = isPlainObject(caps.data['adcp']) ? caps.data['adcp'] : undefined;
    const listed = adcp?.['supported_versions'] ?? adcp?.['major_versions'];
    if (Array.isArray(listed)) view.theirReleases = listed.map(String).slice(0, 50);
  } else if (caps !== undefined) {
    const code = 'error' in caps && caps.error ? ` (${caps.error.code})` : '';
    view.capabilitiesProblem = `get_adcp_capabilities answered ${caps.status}${code}`;
  } else view.capabilitiesProblem = found.capabilitiesProblem ?? 'not reported';
  if (input.release !== undefined) view.release = input.release;
  if (found.mcp !== undefined) view.mcp = found.mcp;
  if (found.mcpProblem !== undefined) view.mcpProblem = found.mcpProblem;
  for (const tool of found.tools ?? []) {
    const row: DiscoveryView['tools'][number] = { name: tool.name };
    if (tool.description !== undefined) row.description = tool.description;
    if (tool.taskSupport !== undefined) row.taskSupport = tool.taskSupport;
    if (found.protocol === 'mcp') row.expectedTaskSupport = taskSupportFor(tool.name);
    view.tools.push(row);
  }
  if (found.toolsProblem !== undefined) view.toolsProblem = found.toolsProblem;
  for (const e of input.exchanges) {
    if (e.status === 401 || e.status === 403) view.auth.refused.push(`${e.method} ${e.url} answered ${e.status}`);
  }
  return view;
}

/** The A2A wire a card offers: 1.0 (`supportedInterfaces`) or v0.3 (`url` + `protocolVersion`). */
function a2aWireOf(card: JsonObject): string {
  const interfaces = card['supportedInterfaces'];
  if (Array.isArray(interfaces) && interfaces.length > 0) {
    const versions = interfaces
      .map((i) => (isPlainObject(i) ? text(i['protocolVersion']) : undefined))
      .filter((v): v is string => v !== undefined);
    return versions.length > 0 ? [...new Set(versions)].join(', ') : '1.0';
  }
  const version = text(card['protocolVersion']);
  return version ?? 'unknown';
}

/** The security schemes an A2A card declares (`securitySchemes` names and types). */
function declaredSchemes(card: JsonObject): string[] {
  const schemes = card['securitySchemes'];
  if (!isPlainObject(schemes)) return [];
  return Object.entries(schemes).map(([name, scheme]) => {
    const type = isPlainObject(scheme) ? (text(scheme['type']) ?? Object.keys(scheme)[0]) : undefined;
    return type === undefined ? name : `${name} (${type})`;
  });
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value.slice(0, 200) : undefined;
}
