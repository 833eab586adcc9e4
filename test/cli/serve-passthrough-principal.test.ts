// `adcp serve --passthrough-principal P`: the billing_gate_dispatch storyboard
// (../shared/compliance/3.1.19/universal/billing-gate-dispatch.yaml, read at run time) graded by
// adcp storyboard's runner over MCP and A2A. The passthrough-only principal gets
// BILLING_NOT_PERMITTED_FOR_AGENT for `billing: agent` and recovers with the suggested `operator`;
// an agent-billable principal on the same seller is provisioned (so the reject step fails for it).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { loadComplianceDir, runStoryboards } from '../../src/storyboard/index.js';
import { spawnServe, type ServeProcess } from '../interop/helpers/spawn-serve.js';
import { recordingIo } from './fake-io.js';

const COMPLIANCE = fileURLToPath(new URL('../../../shared/compliance/3.1.19/', import.meta.url));
const PASSTHROUGH = `pass_${randomBytes(12).toString('hex')}`;
const BILLABLE = `bill_${randomBytes(12).toString('hex')}`;

describe('adcp serve --passthrough-principal (billing_gate_dispatch)', () => {
  let serve: ServeProcess;
  before(async () => {
    serve = await spawnServe([
      '--auth-token',
      `${PASSTHROUGH}=passthrough-agent`,
      '--auth-token',
      `${BILLABLE}=billable-agent`,
      '--passthrough-principal',
      'passthrough-agent',
    ]);
  });
  after(async () => {
    await serve?.stop();
  });

  const grade = async (protocol: 'mcp' | 'a2a', token: string) => {
    const report = await runStoryboards({
      agentUrl: protocol === 'mcp' ? serve.mcp : serve.a2a,
      protocol,
      compliance: loadComplianceDir(COMPLIANCE),
      auth: token,
      ids: ['billing_gate_dispatch'],
      budgetMs: 60_000,
    });
    const [storyboard] = report.storyboards;
    return Object.fromEntries((storyboard?.steps ?? []).map((s) => [s.step_id, s.verdict]));
  };

  for (const protocol of ['mcp', 'a2a'] as const) {
    it(`${protocol}: the passthrough-only agent is refused agent billing and recovers with operator`, async () => {
      assert.deepEqual(await grade(protocol, PASSTHROUGH), {
        get_capabilities: 'passed',
        // The test kit declares no unsupported_billing_probe.
        sync_accounts_unsupported_billing: 'not_applicable',
        sync_accounts_passthrough_rejects_agent: 'passed',
        sync_accounts_recover_with_suggested: 'passed',
      });
    });
  }

  it('mcp: an agent-billable principal is provisioned with agent billing (the reject step fails for it)', async () => {
    const verdicts = await grade('mcp', BILLABLE);
    assert.equal(verdicts['sync_accounts_passthrough_rejects_agent'], 'failed');
  });

  it('refuses --passthrough-principal naming a principal no token has', async () => {
    const io = recordingIo();
    const args = ['--auth-token', `${BILLABLE}=billable-agent`, '--passthrough-principal', 'billable-agnet'];
    assert.equal(await main(['serve', '--port', '0', ...args], io), 2);
    assert.match(io.err(), /--passthrough-principal #1/);
    assert.doesNotMatch(io.err(), new RegExp(BILLABLE));
  });
});
