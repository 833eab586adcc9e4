import { printable } from './args.js';
import { safeJson } from './safe-json.js';
import type { Style } from './style.js';
import { formatTable } from './table.js';
import type { JsonObject } from '../core/types.js';
import type { McpServerFacts } from '../transport/transport.js';

/** What `adcp discover` found, in one shape for both output modes. */
export interface DiscoveryView {
  url: string;
  protocol: 'mcp' | 'a2a';
  /** `meta`: the card's AdCP block as the agent sent it (`--json` keeps it an object). */
  cards: { kind: string; url?: string; name?: string; version?: string; problem?: string; meta?: JsonObject }[];
  /** The `get_adcp_capabilities` body, or why it is missing. */
  capabilities?: JsonObject;
  capabilitiesProblem?: string;
  tools: { name: string; taskSupport?: string; description?: string }[];
  /** MCP agents: the era spoken and the server's capabilities and extensions, or why unknown. */
  mcp?: McpServerFacts;
  mcpProblem?: string;
  /**
   * The AdCP release a client speaks with this agent (the highest both list), or none in common;
   * `theirs` is the agent's `adcp.supported_versions` (`3.x` for a major-only agent).
   */
  adcp?: { release?: string; ours: string[]; theirs: string[] };
  /**
   * Set when nothing usable answered at the URL: `refused` when get_adcp_capabilities answered
   * failed or rejected (the agent said no: a token...), else neither it nor the tool list answered.
   */
  unusable?: { refused: boolean; reason: string };
}

/** The MCP section: era and revision, versions, server, capabilities, extensions. */
function mcpRows(mcp: McpServerFacts): string[][] {
  const era = mcp.era === 'modern' ? 'modern' : 'legacy';
  const details = [mcp.protocolVersion, mcp.era === 'legacy' ? mcp.wire : 'stateless'].filter((d) => d !== undefined);
  const rows = [['era', details.length === 0 ? era : `${era} (${details.join(', ')})`]];
  if (mcp.supportedVersions !== undefined) rows.push(['versions', mcp.supportedVersions.join(', ')]);
  if (mcp.server !== undefined) rows.push(['server', [mcp.server.name, mcp.server.version ?? ''].join(' ').trim()]);
  rows.push(['capabilities', mcp.capabilities.join(', ') || '(none)']);
  rows.push(['extensions', mcp.extensions.join(', ') || '(none)']);
  return rows;
}

/** `protocols_supported: media_buy; adcp_version: 3.1` from a card's AdCP block. */
function summariseMeta(meta: JsonObject): string {
  return Object.entries(meta)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.map(jsonText).join(', ') : jsonText(v)}`)
    .join('; ');
}

function jsonText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/** Envelope fields that say nothing about the agent's capabilities. */
const ENVELOPE = new Set(['status', 'context', 'context_id', 'adcp_version', 'task_id', 'message', 'timestamp']);

/** `AdCP release 3.1 (agent: 3.0, 3.1; this client: 3.0, 3.1)`, or why there is none. */
function describeRelease(adcp: NonNullable<DiscoveryView['adcp']>, style: Style): string {
  const lists = `agent: ${adcp.theirs.map((v) => printable(v)).join(', ') || 'none advertised'}; this client: ${adcp.ours.join(', ')}`;
  return adcp.release === undefined
    ? `${style.bold('AdCP release')} none in common ${style.dim(`(${lists})`)}`
    : `${style.bold('AdCP release')} ${printable(adcp.release)} ${style.dim(`(negotiated; ${lists})`)}`;
}

/** The human report: cards, capabilities (one line per top-level field), tools with task support. */
export function renderDiscovery(view: DiscoveryView, style: Style): string {
  const out: string[] = [`${style.bold('Agent')} ${printable(view.url)} ${style.dim(`(${view.protocol})`)}`];
  if (view.adcp !== undefined) out.push(describeRelease(view.adcp, style));
  out.push('');
  out.push(style.bold('Cards'));
  if (view.cards.length === 0) out.push('  none found', '');
  else {
    out.push(
      formatTable(
        ['card', 'name', 'version', 'url'],
        view.cards.map((c) => [
          c.kind,
          c.problem !== undefined ? `(${c.problem})` : c.meta !== undefined ? summariseMeta(c.meta) : (c.name ?? ''),
          c.version ?? '',
          c.url ?? '',
        ]),
        { maxCell: 70, headerStyle: style.dim },
      ),
    );
  }
  if (view.protocol === 'mcp') {
    out.push(style.bold('MCP'));
    if (view.mcp !== undefined)
      out.push(formatTable(['field', 'value'], mcpRows(view.mcp), { maxCell: 90, headerStyle: style.dim }));
    else out.push(`  ${printable(view.mcpProblem ?? 'not reported')}`, '');
  }
  out.push(style.bold('Capabilities'));
  if (view.capabilities !== undefined) {
    const rows = Object.entries(view.capabilities)
      .filter(([key]) => !ENVELOPE.has(key))
      .map(([key, value]) => [key, typeof value === 'string' ? value : safeJson(value)]);
    out.push(
      rows.length === 0
        ? '  (empty)\n'
        : formatTable(['field', 'value'], rows, { maxCell: 90, headerStyle: style.dim }),
    );
  } else {
    out.push(`  ${printable(view.capabilitiesProblem ?? 'not reported')}`, '');
  }
  out.push(style.bold(`Tools (${view.tools.length})`));
  out.push(
    formatTable(
      ['tool', 'task support', 'description'],
      view.tools.map((t) => [t.name, t.taskSupport ?? '-', t.description ?? '']),
      { maxCell: 70, headerStyle: style.dim },
    ),
  );
  return out.join('\n');
}
