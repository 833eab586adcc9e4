// test-timeout-ms: 300000
// Issue 35: the signed_requests storyboard's generated steps (universal/signed-requests.yaml,
// decision 0230). Every request-signing vector of ../shared/request-signing-vectors is re-signed for
// the live agent with the test kit's keys and sent over the storyboard's own connection:
// - against `adcp serve --sandbox` (it verifies with those keys, as the runner contract asks) every
//   vector step passes over MCP and over A2A, and exactly the vectors whose form cannot reach a
//   live agent are not applicable, each with its reason;
// - against a seller whose verifier is configured wrongly (createAdcpServer's requestSigning
//   without the revocation list, with the production per-keyid cap) vectors 017 and 020 fail with
//   what was expected and what came back, and the others still pass.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  loadComplianceDir,
  loadComplianceRelease,
  runStoryboards,
  type StepOutcome,
} from '../../src/storyboard/index.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { sandboxRequestSigning } from '../../src/seller/sandbox-request-signing.js';
import { MemoryReplayStore } from '../../src/signing/replay-store.js';
import { spawnServe, type ServeProcess } from '../interop/helpers/spawn-serve.js';

const SHARED = fileURLToPath(new URL('../../../shared/', import.meta.url));
const VECTORS = `${SHARED}request-signing-vectors`;
const compliance = () => loadComplianceDir(`${SHARED}compliance/3.1.19`);

/** The vectors whose form cannot be sent to an agent at http://127.0.0.1:PORT/..., and why (decision 0230). */
const NOT_APPLICABLE: Record<string, RegExp> = {
  'positive_vectors/005-default-port-stripped': /default port .* drops it/,
  'positive_vectors/008-percent-encoded-path': /request path .* another resource/,
  'positive_vectors/010-percent-encoded-slash-preserved': /request path .* another resource/,
  'positive_vectors/011-ipv6-authority': /IPv6 literal authority/,
  'positive_vectors/015-bracketed-ipv6-host-with-port': /IPv6 literal authority|Host/,
  'negative_vectors/007-missing-content-digest': /covers_content_digest is required; the agent advertises either/,
  'negative_vectors/025-jwk-alg-crv-mismatch': /jwks_override/,
  'negative_vectors/026-non-ascii-host': /non-ASCII host/,
  'negative_vectors/031-malformed-host-authority': /Host/,
};

function vectorFiles(): string[] {
  return ['positive', 'negative'].flatMap((kind) =>
    readdirSync(`${VECTORS}/${kind}`)
      .filter((f) => f.endsWith('.json'))
      .map((f) => `${kind}_vectors/${f.replace(/\.json$/, '')}`),
  );
}

async function signedRequests(agentUrl: string, protocol: 'mcp' | 'a2a', mcpEra?: 'legacy') {
  const report = await runStoryboards({
    agentUrl,
    protocol,
    ...(mcpEra === undefined ? {} : { mcpEra }),
    compliance: compliance(),
    ids: ['signed_requests'],
    signingVectors: VECTORS,
    webhooks: false,
  });
  const storyboard = report.storyboards[0];
  assert.ok(storyboard !== undefined);
  const steps = new Map<string, StepOutcome>(
    storyboard.steps.filter((s) => s.phase_id !== 'capability_discovery').map((s) => [`${s.phase_id}/${s.step_id}`, s]),
  );
  return { report, storyboard, steps };
}

describe('signed_requests against adcp serve --sandbox', () => {
  const started: ServeProcess[] = [];
  after(async () => {
    for (const seller of started) await seller.stop();
  });

  // The 2025 MCP era binds each session to its caller: the vectors go over sessions their keys open.
  for (const [protocol, era] of [
    ['mcp', undefined],
    ['mcp', 'legacy'],
    ['a2a', undefined],
  ] as const) {
    it(`over ${protocol}${era === undefined ? '' : ` (${era} era)`}: every vector step passes, and only unsendable forms are not applicable`, async () => {
      const seller = await spawnServe(['--sandbox']);
      started.push(seller);
      const { storyboard, steps } = await signedRequests(protocol === 'mcp' ? seller.mcp : seller.a2a, protocol, era);
      assert.deepEqual([...steps.keys()].sort(), vectorFiles().sort(), 'one step per vector file');
      for (const [key, step] of steps) {
        const why = NOT_APPLICABLE[key];
        if (why !== undefined) {
          assert.equal(step.verdict, 'not_applicable', key);
          assert.match(step.skip?.detail ?? '', why, key);
          continue;
        }
        assert.equal(
          step.verdict,
          'passed',
          `${key}: ${JSON.stringify(step.validations)} ${step.fault ?? step.error ?? ''}`,
        );
        // The explanation names the vector file and what it checks.
        assert.match(step.source.location, new RegExp(`vector (positive|negative)/${step.step_id}\\.json`));
        assert.match(step.source.expected_text ?? '', /checks: .+\. Expected: /);
        assert.ok(step.request?.args['$http'] !== undefined, `${key} shows the request it sent`);
      }
      // Vector 016 is the same request twice: accepted, then refused as a replay.
      assert.deepEqual(
        steps.get('negative_vectors/016-replayed-nonce')?.validations.map((v) => v.verdict),
        ['passed', 'passed'],
      );
      assert.equal(storyboard.verdict, 'passed');
    });
  }
});

describe('signed_requests with the vectors of a release tarball (no vectors folder given)', () => {
  it('reads test-vectors/request-signing/ of the 3.0.26 suite and grades its 39 vectors', async () => {
    const seller = await spawnServe(['--sandbox']);
    try {
      const report = await runStoryboards({
        agentUrl: seller.mcp,
        protocol: 'mcp',
        compliance: await loadComplianceRelease({ version: '3.0.26', from: `${SHARED}protocol/3.0.26.tgz` }),
        ids: ['signed_requests'],
        webhooks: false,
      });
      const steps = (report.storyboards[0]?.steps ?? []).filter((s) => s.phase_id !== 'capability_discovery');
      assert.equal(steps.length, 39);
      const verdicts = new Map(steps.map((s) => [`${s.phase_id}/${s.step_id}`, s.verdict]));
      assert.deepEqual(
        steps.filter((s) => s.verdict !== 'passed' && s.verdict !== 'not_applicable').map((s) => s.step_id),
        [],
      );
      // Among them the vectors the 3.1 folder lacks: ES256, a missing component, the governance key.
      for (const key of [
        'positive_vectors/003-es256-post',
        'negative_vectors/006-missing-covered-component',
        'negative_vectors/009-key-ops-missing-verify',
        'negative_vectors/015-signature-invalid',
        'negative_vectors/027-webhook-registration-authentication-unsigned',
      ])
        assert.equal(verdicts.get(key), 'passed', key);
      assert.equal(report.storyboards[0]?.verdict, 'passed');
    } finally {
      await seller.stop();
    }
  });
});

describe('signed_requests against a seller whose verifier is configured wrongly', () => {
  let seller: ReferenceSeller;
  after(async () => {
    await seller?.close();
  });

  it('fails 017 (a revoked key accepted) and 020 (no per-keyid cap) with expected and actual', async () => {
    // The sandbox verifier without its revocation list and with the production cap of 1,000,000.
    const {
      revocation: _revoked,
      replay: _capped,
      ...wrong
    } = sandboxRequestSigning(JSON.parse(readFileSync(`${VECTORS}/keys.json`, 'utf8')));
    seller = await startReferenceSeller({
      requestSigning: { ...wrong, replay: new MemoryReplayStore({ perKeyidCap: 1_000_000 }) },
    });
    const { storyboard, steps } = await signedRequests(seller.mcpUrl, 'mcp');
    const failed = [...steps].filter(([, s]) => s.verdict === 'failed').map(([k]) => k);
    assert.deepEqual(failed, ['negative_vectors/017-key-revoked', 'negative_vectors/020-rate-abuse']);
    assert.equal(storyboard.verdict, 'failed');
    const revoked = steps.get('negative_vectors/017-key-revoked')?.validations[0];
    assert.equal(revoked?.verdict, 'failed');
    assert.equal(revoked?.json_pointer, null);
    assert.deepEqual(revoked?.expected, { http_status: 401, signature_error: 'request_signature_key_revoked' });
    assert.deepEqual(revoked?.actual, { http_status: 200, signature_error: null });
    assert.match(revoked?.note ?? '', /accepted a request the vector says it must refuse/);
    const abuse = steps.get('negative_vectors/020-rate-abuse')?.validations[0];
    assert.deepEqual(abuse?.expected, { http_status: 401, signature_error: 'request_signature_rate_abuse' });
    assert.match(
      abuse?.note ?? '',
      /accepted all 101 signatures by test-es256-2026 within 60 s; the contract's grading cap is 100/,
    );
    for (const [key, step] of steps) {
      if (failed.includes(key) || NOT_APPLICABLE[key] !== undefined) continue;
      assert.equal(step.verdict, 'passed', key);
    }
  });
});
