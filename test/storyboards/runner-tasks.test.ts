// test-timeout-ms: 300000
// Issue 35: what the runner does itself, against the reference seller (`adcp serve`'s seller with
// its test controller): the per-task request builder (decision 0225) and the runner tasks of
// storyboard-schema.yaml. Each step the runner used to mark as a harness fault now gets a verdict
// on the agent's answer, explained.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { loadComplianceDir, runStoryboards, type StepOutcome } from '../../src/storyboard/index.js';

const COMPLIANCE = fileURLToPath(new URL('../../../shared/compliance/3.1.19', import.meta.url));

describe('runner tasks and the request builder, against the reference seller', { concurrency: 1 }, () => {
  let seller: ReferenceSeller;
  before(async () => {
    seller = await startReferenceSeller({ testController: true });
  });
  after(async () => {
    await seller.close();
  });

  it('webhook_emission: the envelope-only create_media_buy steps are completed by the builder and graded', async () => {
    const report = await runStoryboards({
      agentUrl: seller.mcpUrl,
      protocol: 'mcp',
      compliance: loadComplianceDir(COMPLIANCE),
      ids: ['webhook_emission'],
    });
    const steps = new Map<string, StepOutcome>(
      (report.storyboards[0]?.steps ?? []).map((s) => [`${s.phase_id}/${s.step_id}`, s]),
    );
    const trigger = steps.get('idempotency_key_presence/trigger_webhook_operation');
    assert.equal(trigger?.verdict, 'passed', JSON.stringify(trigger));
    // What the storyboard wrote is kept; what it left out is said, with where it came from.
    assert.deepEqual(trigger?.built?.map((b) => b.pointer).sort(), [
      '/account',
      '/brand',
      '/end_time',
      '/packages',
      '/start_time',
    ]);
    assert.match(
      trigger?.built?.find((b) => b.pointer === '/packages')?.from ?? '',
      /^the agent's get_products: product \S+, pricing option \S+$/,
    );
    assert.equal(trigger?.request?.args['push_notification_config'] !== undefined, true);
    // The replay sends the same payload (one end_time per run), so the agent can answer from its cache.
    assert.equal(steps.get('idempotency_replay_side_effects/trigger_idempotent_webhook_replay')?.verdict, 'passed');
    // The webhooks are graded on what arrived.
    for (const id of [
      'idempotency_key_presence/expect_webhook_presence',
      'operation_id_echo/expect_operation_id_echo',
      'idempotency_replay_side_effects/expect_no_duplicate_webhook_on_replay',
    ])
      assert.equal(steps.get(id)?.verdict, 'passed', `${id}: ${JSON.stringify(steps.get(id))}`);
    const duplicate = steps
      .get('idempotency_replay_side_effects/expect_no_duplicate_webhook_on_replay')
      ?.validations.find((v) => v.check === 'expect_max_deliveries_per_logical_event');
    assert.ok(duplicate !== undefined && typeof duplicate.actual === 'object', 'counted per status');
    // One discovery for the whole storyboard, on its own connection.
    assert.equal(report.storyboards[0]?.sessions, 1);
  });
});
