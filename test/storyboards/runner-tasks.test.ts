// test-timeout-ms: 300000
// Issue 35: what the runner does itself, against the reference seller (`adcp serve`'s seller with
// its test controller): the per-task request builder (decision 0225) and the runner tasks of
// storyboard-schema.yaml. Each step the runner used to mark as a harness fault now gets a verdict
// on the agent's answer, explained.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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
    // No identity.brand_json_url in its capabilities: the agent publishes no keys, its failure.
    const fetched = steps.get('signing_keys_published/fetch_brand_json');
    assert.equal(fetched?.verdict, 'failed');
    assert.equal(fetched?.validations[0]?.check, 'brand_json_unreachable');
    assert.match(String(fetched?.validations[0]?.actual), /declares no identity\.brand_json_url/);
    // A plain-http agent: the verdict says how to get past it locally (decisions 0215, 0227).
    assert.match(fetched?.validations[0]?.note ?? '', /https --public-url.*--brand-json URL.*--allow-http/);
    assert.equal(
      steps.get('signing_keys_published/assert_webhook_signing_key_present')?.validations[0]?.check,
      'webhook_signing_keys_unpublished',
    );
    // The retry scenario ran: the receiver refused the first three deliveries, the key stayed.
    const retry = steps.get('idempotency_key_stability/expect_key_stable_across_retries');
    assert.equal(retry?.validations.find((v) => v.check === 'expect_min_deliveries')?.verdict, 'passed');
    assert.equal(retry?.validations.find((v) => v.check === 'idempotency_key_stable')?.verdict, 'passed');
  });

  it('webhook signatures verify with the keys of the brand.json the operator names', async () => {
    const origin = new URL(seller.mcpUrl).origin;
    const brand = createServer((req, res) => {
      if (req.url !== '/.well-known/brand.json') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          agents: [{ type: 'sales', url: seller.mcpUrl, jwks_uri: `${origin}/.well-known/jwks.json` }],
        }),
      );
    });
    await new Promise<void>((resolve) => brand.listen(0, '127.0.0.1', resolve));
    const brandJsonUrl = `http://127.0.0.1:${(brand.address() as AddressInfo).port}/.well-known/brand.json`;
    try {
      // The brand.json is on another loopback origin than the agent's: allowed by allowHttp only.
      const report = await runStoryboards({
        agentUrl: seller.mcpUrl,
        protocol: 'mcp',
        compliance: loadComplianceDir(COMPLIANCE),
        ids: ['webhook_emission'],
        brandJsonUrl,
        allowHttp: true,
      });
      const steps = new Map((report.storyboards[0]?.steps ?? []).map((s) => [`${s.phase_id}/${s.step_id}`, s]));
      for (const id of [
        'signing_keys_published/fetch_brand_json',
        'signing_keys_published/assert_webhook_signing_key_present',
        'idempotency_key_stability/expect_key_stable_across_retries',
        'signature_validity/expect_signature_valid',
      ])
        assert.equal(steps.get(id)?.verdict, 'passed', `${id}: ${JSON.stringify(steps.get(id))}`);
      const retried = steps.get('idempotency_key_stability/expect_key_stable_across_retries');
      // Every delivery of the retried event was verified, with one replay store for the run.
      const signatures = retried?.validations.filter((v) => v.check === 'signature_valid') ?? [];
      assert.ok(signatures.length >= 2, `${signatures.length} signatures verified`);
      assert.equal(report.storyboards[0]?.verdict, 'passed');
    } finally {
      await new Promise((resolve) => brand.close(resolve));
    }
  });

  it('expect_rate_limit_not_replayed: offered with rateLimitTrip, the burst runs; without, not applicable', async () => {
    const run = (rateLimitTrip: boolean) =>
      runStoryboards({
        agentUrl: seller.mcpUrl,
        protocol: 'mcp',
        compliance: loadComplianceDir(COMPLIANCE),
        ids: ['idempotency'],
        rateLimitTrip,
      });
    const step = (report: Awaited<ReturnType<typeof run>>) =>
      report.storyboards[0]?.steps.find((s) => s.step_id === 'expect_rate_limit_not_replayed');
    const off = step(await run(false));
    assert.equal(off?.verdict, 'not_applicable');
    assert.match(off?.skip?.detail ?? '', /requires_contract: rate_limit_trip_runner.*--rate-limit-trip/);
    // The reference seller's limiter sits above 200 sequential creates: the contract's
    // exhausted outcome, not a failure.
    const on = step(await run(true));
    assert.equal(on?.verdict, 'not_applicable', JSON.stringify(on));
    assert.match(on?.skip?.detail ?? '', /^rate_limit_not_triggered: 200 sequential create_media_buy calls/);
  });

  it('replay_webhook_vector and expect_substitution_safe are not applicable only as their storyboards allow', async () => {
    const report = await runStoryboards({
      agentUrl: seller.mcpUrl,
      protocol: 'mcp',
      compliance: loadComplianceDir(COMPLIANCE),
      ids: ['webhook_receiver_envelope', 'sales_catalog_driven', 'sales_social'],
    });
    // webhook-receiver-envelope.yaml grades a buyer's receiver: "Runners without a receiver URL grade
    // this storyboard as not_applicable"; its replay_webhook_vector steps are never sent to the agent.
    const envelope = report.storyboards.find((s) => s.id === 'webhook_receiver_envelope');
    assert.equal(envelope?.verdict, 'not_applicable');
    assert.deepEqual(envelope?.steps, []);
    assert.match(
      envelope?.skip?.detail ?? '',
      /Runners without a receiver URL grade this storyboard as not_applicable/,
    );
    // The substitution-safety phases: "Runners that do not advertise the contract grade the step as
    // not_applicable"; the step is gated by its requires_contract, not by a missing runner task.
    // (creative_generative is not applicable as a whole here: the seller lists no build_creative.)
    for (const id of ['sales_catalog_driven', 'sales_social']) {
      const steps = report.storyboards.find((s) => s.id === id)?.steps ?? [];
      const safe = steps.filter((s) => s.task === 'expect_substitution_safe');
      assert.ok(safe.length > 0, `${id} has an expect_substitution_safe step`);
      for (const step of safe) {
        assert.equal(step.verdict, 'not_applicable', `${id}: ${JSON.stringify(step)}`);
        assert.match(
          step.skip?.detail ?? '',
          /^requires_contract: substitution_observer_runner, which this run does not offer/,
        );
      }
    }
  });
});
