// test-timeout-ms: 300000
// The official `security` storyboard (universal/security.yaml), walked by the incumbent SDK's
// storyboard runner against the reference seller, as a compliance runner with the acme-outdoor
// test kit (auth.api_key, probe_task list_creatives) would: the unauthenticated probe, the API-key
// path (valid key accepted on an initialized MCP session, a random key refused) and the mechanism
// check pass; the OAuth phase is skipped (no metadata served for a static-credential agent). The
// open seller fails the same walk at probe_unauth, so the walk grades what it claims to.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { runSecurityStoryboard } from '../peers/adcp-sdk/security-storyboard.js';

const STORYBOARD = path.resolve(import.meta.dirname, '../../../shared/compliance/3.1.19/universal/security.yaml');
const API_KEY = 'demo-acme-outdoor-v1'; // test-kits/acme-outdoor.yaml

describe('security storyboard (official runner) against the reference seller', () => {
  it('passes with auth.tokens holding the test kit key', async () => {
    const seller = await startReferenceSeller({ auth: { tokens: { [API_KEY]: 'acme-outdoor' } } });
    try {
      const result = await runSecurityStoryboard(seller.mcpUrl, STORYBOARD, API_KEY);
      const by = new Map(result.steps.map((s) => [s.step, s]));
      for (const step of ['probe_unauth', 'probe_api_key', 'probe_invalid_api_key', 'assert_mechanism']) {
        assert.equal(by.get(step)?.passed, true, `${step}: ${JSON.stringify(by.get(step))}`);
        assert.equal(by.get(step)?.skipped, false, step);
      }
      assert.equal(by.get('probe_protected_resource')?.skipped, true);
      assert.equal(result.overallPassed, true, JSON.stringify(result.steps));
    } finally {
      await seller.close();
    }
  });

  it('fails at probe_unauth against the open seller', async () => {
    const seller = await startReferenceSeller();
    try {
      const result = await runSecurityStoryboard(seller.mcpUrl, STORYBOARD, API_KEY);
      assert.equal(result.steps.find((s) => s.step === 'probe_unauth')?.passed, false);
      assert.equal(result.overallPassed, false);
    } finally {
      await seller.close();
    }
  });
});
