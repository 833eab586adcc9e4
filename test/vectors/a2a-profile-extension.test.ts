import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { a2aProfileHandler } from '../../src/cli/conformance/a2a-profile.js';
import { buildAgentCard } from '../../src/server/http/cards.js';
import { checkProfileCard } from '../../src/core/a2a-profile-card.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const file = path.resolve(repoRoot, '../shared/vectors/a2a-profile-extension-v3.json');
const doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

describe('a2a-profile-extension-v3.json through the conformance handler', async () => {
  assert.equal(a2aProfileHandler.matches(doc), true);
  const results = await a2aProfileHandler.run(doc, { file, jwksNear: () => [] });
  const count = ['advertisement_vectors', 'invocation_vectors', 'response_vectors']
    .map((k) => (doc[k] as unknown[]).length)
    .reduce((a, b) => a + b, 0);
  it('runs every vector of the file', () => assert.equal(results.length, count));
  for (const result of results) {
    it(result.id, () => assert.equal(result.ok, true, result.reason));
  }
});

describe('the cards createAdcpServer serves', () => {
  const input = {
    name: 'n',
    version: '1',
    description: 'd',
    adcpVersion: '3.1',
    cardMeta: {},
    mcpTools: [],
    a2aTools: [
      { name: 'get_adcp_capabilities', description: 'c', handler: () => ({}) },
      { name: 'get_task_status', description: 's', handler: () => ({}) },
    ],
    mcpUrl: 'http://127.0.0.1/mcp',
    a2aUrl: 'http://127.0.0.1/a2a',
    a2aLegacyUrl: 'http://127.0.0.1/a2a/legacy',
  };
  it('pass the advertisement check: required on the main card, not on the legacy one', () => {
    assert.deepEqual(checkProfileCard(buildAgentCard(input)), {
      ok: true,
      required: true,
      skillIds: ['get_adcp_capabilities', 'get_task_status'],
    });
    const legacy = checkProfileCard(buildAgentCard(input, 'legacy'));
    assert.equal(legacy.ok && legacy.required, false);
  });
});
