import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runDiscover } from '../../src/cli/discover.js';
import { toDiscoveryView } from '../../src/cli/open-discovery.js';
import type { DiscoverResult } from '../../src/client/discover.js';
import { recordingIo } from './fake-io.js';

const HOSTILE = '\u001b]0;owned\u0007Evil\r\nSeller\u202e';

const found: DiscoverResult = {
  protocol: 'mcp',
  card: { url: 'http://127.0.0.1:1/.well-known/mcp.json', card: { name: HOSTILE, version: '1\u001b[31m' } },
  capabilities: {
    status: 'completed',
    protocol: 'mcp',
    raw: {},
    data: { status: 'completed', supported_protocols: [HOSTILE] },
  },
  tools: [{ name: `get_products${HOSTILE}`, taskSupport: 'optional', description: HOSTILE }],
  mcp: {
    era: 'modern',
    protocolVersion: '2026-07-28',
    supportedVersions: ['2026-07-28', HOSTILE],
    server: { name: HOSTILE, version: '9' },
    capabilities: ['tools', HOSTILE],
    extensions: [`io.example/${HOSTILE}`],
  },
};

describe('adcp discover output', () => {
  it('never lets control or bidi characters from the agent reach the terminal', async () => {
    const io = recordingIo();
    const code = await runDiscover(['http://127.0.0.1:1/mcp'], io, async (c) => toDiscoveryView(c.url, found));
    assert.equal(code, 0);
    // oxlint-disable-next-line no-control-regex -- the test is that no control character reaches the terminal
    assert.doesNotMatch(io.out(), /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    assert.match(io.out(), /MCP server card +\]0;ownedEvil Seller/);
    assert.match(io.out(), /^get_products\]0;ownedEvil Seller +optional/m);
    assert.match(io.out(), /^extensions +io\.example\/\]0;ownedEvil Seller$/m);
    assert.match(io.out(), /^server +\]0;ownedEvil Seller 9$/m);
  });

  it('says why the MCP section is empty when the server could not be described', async () => {
    const { mcp: _mcp, ...rest } = found;
    const view = toDiscoveryView('http://x', { ...rest, mcpProblem: 'server/discover answered HTTP 500' });
    const io = recordingIo();
    await runDiscover(['http://127.0.0.1:1/mcp'], io, async () => view);
    assert.match(io.out(), /^MCP\n {2}server\/discover answered HTTP 500$/m);
  });

  it('leaves out envelope fields from the capabilities table', async () => {
    const view = toDiscoveryView('http://x', found);
    const io = recordingIo();
    await runDiscover(['http://127.0.0.1:1/mcp'], io, async () => view);
    assert.doesNotMatch(io.out(), /^status /m);
    assert.match(io.out(), /^supported_protocols /m);
  });

  it('reports a missing get_adcp_capabilities instead of failing', () => {
    const view = toDiscoveryView('http://x', {
      ...found,
      capabilities: undefined,
      capabilitiesProblem: 'no such tool',
    } as unknown as DiscoverResult);
    assert.equal(view.capabilities, undefined);
    assert.equal(view.capabilitiesProblem, 'no such tool');
  });
});
