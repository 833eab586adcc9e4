// test-timeout-ms: 600000
// Issue 35: `runStoryboards` grades the reference seller (`adcp serve`'s seller, with its test
// controller) with every storyboard of ../shared/compliance/3.1.19 a capability-driven run selects,
// over MCP and over A2A, and every verdict carries its explanation. The seller's own failures are
// findings for the seller's work, not asserted here; what is asserted is the runner's contract.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { startWireRecorder } from './wire-recorder.js';
import {
  loadComplianceDir,
  loadComplianceRelease,
  runStoryboards,
  type RunReport,
  type StepOutcome,
} from '../../src/storyboard/index.js';

const COMPLIANCE = fileURLToPath(new URL('../../../shared/compliance/3.1.19', import.meta.url));
const TARBALL = fileURLToPath(new URL('../../../shared/protocol/3.0.26.tgz', import.meta.url));

/** Every verdict explains itself (issue 35: request, answer, pointer, expected, actual, source). */
function assertExplained(report: RunReport): void {
  for (const storyboard of report.storyboards) {
    assert.ok(storyboard.selected_because !== '', `${storyboard.id} says why it was selected`);
    if (storyboard.verdict === 'not_applicable' && storyboard.steps.length === 0) {
      assert.ok(storyboard.skip?.detail, `${storyboard.id} names the gate that made it not applicable`);
    }
    for (const step of storyboard.steps) explained(storyboard.id, step);
  }
}

function explained(id: string, step: StepOutcome): void {
  const where = `${id} ${step.phase_id}/${step.step_id}`;
  assert.ok(step.source.storyboard.endsWith('.yaml'), `${where} cites its storyboard file`);
  switch (step.verdict) {
    case 'failed': {
      const failed = step.validations.filter((v) => v.verdict === 'failed');
      assert.ok(failed.length > 0 || step.error !== undefined, `${where} says what failed`);
      for (const v of failed) {
        assert.ok(v.description !== '', `${where} ${v.check} has a description`);
        assert.ok(
          'expected' in v && 'actual' in v && 'json_pointer' in v,
          `${where} ${v.check} has expected/actual/pointer`,
        );
      }
      if (step.phase_id !== '__controller_seeding__' && !failed.some((v) => v.check === 'unresolved_substitution')) {
        assert.ok(step.request !== undefined, `${where} shows the request it sent`);
      }
      break;
    }
    case 'skipped':
      assert.ok(step.skip?.reason !== undefined && step.skip.detail !== '', `${where} says why it was skipped`);
      if (step.skip.reason === 'prerequisite_failed')
        assert.ok(step.cause, `${where} names the step that caused the skip`);
      break;
    case 'not_applicable':
      assert.ok(step.skip?.detail, `${where} names its gate`);
      break;
    case 'harness_fault':
      assert.ok(step.fault, `${where} says what went wrong on our side`);
      break;
    case 'passed':
      break;
  }
}

describe('runStoryboards against the reference seller', { concurrency: 1 }, () => {
  let seller: ReferenceSeller;
  before(async () => {
    seller = await startReferenceSeller({ testController: true });
  });
  after(async () => {
    await seller.close();
  });

  for (const protocol of ['mcp', 'a2a'] as const) {
    it(`a capability-driven run over ${protocol} explains every verdict, one connection per storyboard`, async () => {
      const compliance = loadComplianceDir(COMPLIANCE);
      const report = await runStoryboards({
        agentUrl: protocol === 'mcp' ? seller.mcpUrl : seller.a2aUrl,
        protocol,
        compliance,
      });
      assert.equal(report.protocol, protocol);
      assert.equal(report.release, '3.1.19');
      assert.equal(report.adcp_version, '3.1');
      assert.equal(report.cut_short, undefined);
      const verdict = (id: string) => report.storyboards.find((s) => s.id === id)?.verdict;
      // Universal storyboards run for every agent; the seller claims media_buy only.
      for (const id of ['capability_discovery', 'v3_envelope_integrity', 'version_negotiation'])
        assert.equal(verdict(id), 'passed', id);
      assert.ok(
        report.storyboards.some(
          (s) => s.id === 'media_buy_seller' && s.selected_because === 'supported_protocols includes media_buy',
        ),
      );
      const signals = report.storyboards.find((s) => s.id === 'signals_baseline');
      assert.equal(signals?.verdict, 'not_applicable');
      assert.match(signals?.detail ?? '', /does not claim signals \(supported_protocols: \[media_buy\]\)/);
      // No request_signing advertised: signed-requests is not applicable, not failed.
      assert.equal(verdict('signed_requests'), 'not_applicable');
      assertExplained(report);
      for (const storyboard of report.storyboards) {
        const overrides = new Set(
          storyboard.steps.filter((s) => s.request?.auth !== undefined).map((s) => s.request?.auth),
        );
        assert.ok(
          storyboard.sessions <= 1 + overrides.size,
          `${storyboard.id} opened ${storyboard.sessions} connections`,
        );
      }
      // exit code: 1 when the agent failed, else 4 when something was not graded, else 0.
      const { failed, harness_fault: faults } = report.counts.storyboards;
      assert.equal(report.exit_code, failed > 0 ? 1 : faults > 0 ? 4 : 0);
    });
  }

  for (const mcpEra of ['legacy', 'modern'] as const) {
    it(`speaks the ${mcpEra} MCP era when pinned, as the wire shows`, async () => {
      const wire = await startWireRecorder(new URL(seller.mcpUrl).origin);
      let report: RunReport;
      try {
        report = await runStoryboards({
          agentUrl: wire.url(new URL(seller.mcpUrl).pathname),
          protocol: 'mcp',
          mcpEra,
          compliance: loadComplianceDir(COMPLIANCE),
          ids: ['capability_discovery', 'v3_envelope_integrity'],
          // The recording proxy adds a hop; a loaded machine must not turn that into a timeout.
          stepTimeoutMs: 120_000,
        });
      } finally {
        await wire.close();
      }
      for (const s of report.storyboards) assert.equal(s.verdict, 'passed', `${s.id} over the ${mcpEra} era`);
      // What the agent received: the 2026 era sends MCP-Protocol-Version 2026-07-28 on every request
      // and never initializes; the 2025 era initializes a session and never says 2026-07-28.
      const rpc = wire.records.filter((r) => r.rpc !== undefined);
      const tools = rpc.filter((r) => r.rpc === 'tools/call');
      assert.ok(tools.length >= 3, `${tools.length} tools/call on the wire`);
      if (mcpEra === 'modern') {
        assert.ok(
          rpc.every((r) => r.protocolVersion === '2026-07-28'),
          JSON.stringify(rpc.slice(0, 3)),
        );
        assert.equal(rpc.filter((r) => r.rpc === 'initialize').length, 0);
      } else {
        assert.ok(
          rpc.every((r) => r.protocolVersion !== '2026-07-28'),
          JSON.stringify(rpc.slice(0, 3)),
        );
        assert.ok(rpc.some((r) => r.rpc === 'initialize'));
        assert.ok(
          tools.every((r) => r.session !== undefined),
          'every call inside a session',
        );
      }
    });
  }

  it('sends what the storyboard says, substituted, and never a literal placeholder', async () => {
    const report = await runStoryboards({
      agentUrl: seller.mcpUrl,
      protocol: 'mcp',
      compliance: loadComplianceDir(COMPLIANCE),
      ids: ['idempotency'],
    });
    const sent = JSON.stringify(report.storyboards.flatMap((s) => s.steps.map((step) => step.request?.args ?? {})));
    assert.doesNotMatch(sent, /\$context\.|\$generate:|\{\{/);
    const replay = report.storyboards[0]?.steps.find((s) => s.step_id === 'create_media_buy_replay');
    assert.ok(replay !== undefined, 'the replay step ran');
    assertExplained(report);
  });

  it('reads the compliance suite of a verified release tarball, and the client speaks that release', async () => {
    const compliance = await loadComplianceRelease({ version: '3.0.26', from: TARBALL });
    assert.equal(compliance.version, '3.0.26');
    assert.match(compliance.source, /checksum-pinned/);
    const report = await runStoryboards({
      agentUrl: seller.mcpUrl,
      protocol: 'mcp',
      compliance,
      ids: ['capability_discovery'],
    });
    assert.equal(report.adcp_version, '3.0');
    const step = report.storyboards[0]?.steps[0];
    assert.equal(step?.request?.args['adcp_version'], '3.0', 'a 3.0 run speaks 3.0');
    assert.equal(report.storyboards[0]?.verdict, 'passed');
  });

  it('refuses a tarball whose checksum does not match its sidecar', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'adcp-storyboard-'));
    try {
      copyFileSync(TARBALL, join(dir, '3.0.26.tgz'));
      writeFileSync(join(dir, '3.0.26.tgz.sha256'), `${'0'.repeat(64)}  3.0.26.tgz\n`);
      await assert.rejects(loadComplianceRelease({ version: '3.0.26', from: join(dir, '3.0.26.tgz') }), {
        code: 'checksum_mismatch',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a run cut short by its budget says so', async () => {
    const report = await runStoryboards({
      agentUrl: seller.mcpUrl,
      protocol: 'mcp',
      compliance: loadComplianceDir(COMPLIANCE),
      budgetMs: 1500,
    });
    assert.match(report.cut_short ?? '', /budget of 2 s ran out|budget of 1 s ran out/);
    assert.ok(
      report.storyboards.some(
        (s) => s.verdict === 'harness_fault' && /cut short/.test(`${s.detail ?? ''}${s.cut_short ?? ''}`),
      ),
    );
  });
});
