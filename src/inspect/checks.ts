import type { AdcpClient } from '../client/adcp-client.js';
import { getValidator } from '../schemas/adcp-validator.js';
import type { DiscoveryView } from './discovery-view.js';

/** One conformance check on a live agent: its verdict and why, with the spec page that says so. */
export interface CheckResult {
  id: string;
  title: string;
  verdict: 'pass' | 'fail' | 'warn' | 'skip';
  detail: string;
  /** The spec page (under the AdCP docs) the rule comes from. */
  spec: string;
}

/**
 * The checks that apply to a running agent, read from its discovery (cards, capabilities, tool
 * list) and the official schemas: nothing is sent beyond what discovery sends. Storyboards
 * (`adcp storyboard`) cover behaviour.
 */
export async function runChecks(discovery: DiscoveryView, client: AdcpClient): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  const add = (id: string, title: string, verdict: CheckResult['verdict'], detail: string, spec: string) =>
    out.push({ id, title, verdict, detail, spec });

  if (discovery.problem !== undefined) {
    add('reachable', 'The agent answers', 'fail', discovery.problem, 'calling-an-agent.md');
    return out;
  }
  add('reachable', 'The agent answers', 'pass', `over ${discovery.protocol ?? '?'}`, 'calling-an-agent.md');

  const own = discovery.cards.find(
    (c) => c.kind === (discovery.protocol === 'a2a' ? 'A2A agent card' : 'MCP server card'),
  );
  add(
    'card',
    discovery.protocol === 'a2a' ? 'An A2A agent card is published' : 'An MCP server card is published',
    own?.card !== undefined ? 'pass' : discovery.protocol === 'a2a' ? 'fail' : 'warn',
    own?.card !== undefined ? `at ${own.url ?? '?'}` : (own?.problem ?? 'none found'),
    discovery.protocol === 'a2a' ? 'a2a-guide.md' : 'mcp-guide.md',
  );

  if (discovery.a2aProfile !== undefined) {
    add(
      'a2a-profile',
      'The A2A card follows the AdCP A2A profile (v3) advertisement rules',
      discovery.a2aProfile.ok ? 'pass' : 'fail',
      discovery.a2aProfile.ok
        ? `extension under capabilities.extensions[], get_adcp_capabilities skill${discovery.a2aProfile.required ? ', required' : ''}`
        : `${discovery.a2aProfile.code ?? ''}: ${discovery.a2aProfile.message ?? ''}`,
      'a2a-profile-extension.md',
    );
  } else
    add(
      'a2a-profile',
      'The A2A card follows the AdCP A2A profile (v3)',
      'skip',
      'no A2A agent card',
      'a2a-profile-extension.md',
    );

  if (discovery.capabilities === undefined) {
    add(
      'capabilities',
      'get_adcp_capabilities answers',
      'fail',
      discovery.capabilitiesProblem ?? 'no answer',
      'capabilities.md',
    );
  } else {
    add('capabilities', 'get_adcp_capabilities answers', 'pass', 'completed', 'capabilities.md');
    const release = discovery.release;
    try {
      const validator = getValidator(release);
      const checked = validator.response('get_adcp_capabilities', discovery.capabilities);
      add(
        'capabilities-schema',
        `Its answer matches the AdCP ${validator.release} response schema`,
        checked.ok ? 'pass' : 'fail',
        checked.ok
          ? (checked.schema ?? 'no schema')
          : checked.issues.map((i) => `${i.pointer || '(root)'} ${i.keyword}: ${i.message}`).join('; '),
        'schemas.md',
      );
    } catch (error) {
      add(
        'capabilities-schema',
        'Its answer matches the response schema',
        'skip',
        error instanceof Error ? error.message : 'no schemas',
        'schemas.md',
      );
    }
  }

  const release = await client.negotiatedRelease().catch((error: unknown) => error);
  if (typeof release === 'string') {
    add(
      'release',
      'A release in common',
      'pass',
      `AdCP ${release} (the agent lists ${discovery.theirReleases.join(', ') || 'no versions'})`,
      'versioning.md',
    );
  } else {
    add('release', 'A release in common', 'fail', release instanceof Error ? release.message : 'none', 'versioning.md');
  }

  if (discovery.protocol === 'mcp') {
    add(
      'mcp-era',
      'The MCP era is known',
      discovery.mcp !== undefined ? 'pass' : 'fail',
      discovery.mcp !== undefined
        ? `${discovery.mcp.era} (${discovery.mcp.protocolVersion ?? '?'})`
        : (discovery.mcpProblem ?? 'unknown'),
      'mcp-guide.md',
    );
    const wrong = discovery.tools.filter(
      (t) => t.expectedTaskSupport !== undefined && (t.taskSupport ?? 'forbidden') !== t.expectedTaskSupport,
    );
    add(
      'task-support',
      "Each tool's MCP task support is the mcp-guide's",
      discovery.tools.length === 0 ? 'skip' : wrong.length === 0 ? 'pass' : 'warn',
      wrong.length === 0
        ? `${discovery.tools.length} tools checked`
        : wrong.map((t) => `${t.name}: ${t.taskSupport ?? 'none'}, the guide says ${t.expectedTaskSupport}`).join('; '),
      'mcp-guide.md',
    );
  }

  if (discovery.tools.length > 0) {
    try {
      const bundle = getValidator(typeof release === 'string' ? release : undefined).bundle;
      const unknown = discovery.tools.map((t) => t.name).filter((n) => bundle.tool(n) === undefined);
      const named = discovery.tools.some((t) => t.name === 'get_adcp_capabilities');
      add(
        'tools',
        `Its tools are AdCP ${bundle.release} tools, get_adcp_capabilities among them`,
        !named ? 'fail' : unknown.length === 0 ? 'pass' : 'warn',
        !named
          ? 'get_adcp_capabilities is not listed'
          : unknown.length === 0
            ? `${discovery.tools.length} tools, all in the manifest`
            : `not in the AdCP ${bundle.release} manifest: ${unknown.slice(0, 20).join(', ')}`,
        'schemas.md',
      );
    } catch {
      // no schemas: the tools check needs the manifest
    }
  } else add('tools', 'It lists its tools', 'fail', discovery.toolsProblem ?? 'none listed', 'calling-an-agent.md');
  return out;
}
