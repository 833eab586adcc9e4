import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../core/types.js';
import { getValidator } from '../../schemas/adcp-validator.js';
import { describeIssues } from '../../schemas/validation-result.js';
import { answerCapabilities, buildCapabilities, type CapabilitiesConfig } from './capabilities.js';

const base: CapabilitiesConfig = {
  releases: ['3.0', '3.1'],
  replayTtlSeconds: 86_400,
  inFlightMaxSeconds: 35,
  tools: ['get_products', 'create_media_buy', 'get_task_status'],
};

function assertValidEverywhere(document: JsonObject): void {
  for (const release of ['3.0', '3.1']) {
    // As answered: the server adds the envelope's status (3.1 requires it).
    const checked = getValidator(release).response('get_adcp_capabilities', { ...document, status: 'completed' });
    assert.ok(checked.ok, `${release}: ${checked.ok ? '' : describeIssues(checked.issues)}`);
  }
}

describe('buildCapabilities', () => {
  it('declares the releases, the idempotency the server enforces and the protocols of its tools', () => {
    const document = buildCapabilities(base);
    assert.deepEqual(document.adcp, {
      major_versions: [3],
      supported_versions: ['3.0', '3.1'],
      idempotency: { supported: true, replay_ttl_seconds: 86_400, in_flight_max_seconds: 35 },
    });
    assert.deepEqual(document.supported_protocols, ['media_buy']);
    assert.deepEqual(document.account, { supported_billing: ['operator'] }, '3.0 requires it of a media_buy seller');
    assert.equal(document.webhook_signing, undefined);
    assertValidEverywhere(document);
  });

  it('takes the protocols from the tools', () => {
    const document = buildCapabilities({ ...base, tools: ['get_signals', 'activate_signal', 'sync_creatives'] });
    assert.deepEqual(document.supported_protocols, ['signals', 'creative']);
    assertValidEverywhere(document);
  });

  it('declares webhook and request signing when configured', () => {
    const requestSigning = { supported: true, covers_content_digest: 'either', required_for: [], supported_for: [] };
    const document = buildCapabilities({ ...base, webhookSigningAlg: 'ed25519', requestSigning });
    assert.deepEqual(document.webhook_signing, {
      supported: true,
      profile: 'adcp/webhook-signing/v1',
      algorithms: ['ed25519'],
      legacy_hmac_fallback: true,
    });
    assert.deepEqual(document.request_signing, requestSigning);
    assertValidEverywhere(document);
  });

  it("merges a seller's fields and keeps the server's adcp block", () => {
    const document = buildCapabilities({
      ...base,
      override: {
        adcp: { build_version: '1.2.3', idempotency: { supported: false } },
        account: { supported_billing: ['agent'] },
        media_buy: { features: { async_media_buy: true } },
        specialisms: ['sales-non-guaranteed'],
      },
    });
    assert.deepEqual((document.adcp as JsonObject).idempotency, {
      supported: true,
      replay_ttl_seconds: 86_400,
      in_flight_max_seconds: 35,
    });
    assert.equal((document.adcp as JsonObject).build_version, '1.2.3');
    assert.deepEqual(document.account, { supported_billing: ['agent'] });
    assert.deepEqual(document.specialisms, ['sales-non-guaranteed']);
    assertValidEverywhere(document);
  });

  it('takes a function of the generated document', () => {
    const document = buildCapabilities({
      ...base,
      override: (generated) => ({ ...generated, extensions_supported: ['acme'] }),
    });
    assert.deepEqual(document.extensions_supported, ['acme']);
    assert.equal(((document.adcp as JsonObject).idempotency as JsonObject).replay_ttl_seconds, 86_400);
  });

  it('never declares an in-flight bound above the replay window', () => {
    const document = buildCapabilities({ ...base, replayTtlSeconds: 3600, inFlightMaxSeconds: 5000 });
    assert.equal(((document.adcp as JsonObject).idempotency as JsonObject).in_flight_max_seconds, 3600);
  });
});

describe('answerCapabilities', () => {
  const document = buildCapabilities({
    ...base,
    tools: ['create_media_buy', 'get_signals'],
    override: { media_buy: { features: { async_media_buy: true } }, signals: { features: {} } },
  });

  it('leaves out the blocks of protocols not asked for', () => {
    const answer = answerCapabilities(document, { protocols: ['signals'] });
    assert.deepEqual(answer.supported_protocols, ['signals']);
    assert.equal(answer.media_buy, undefined);
    assert.deepEqual(answer.signals, { features: {} });
    assert.deepEqual(answer.adcp, document.adcp);
  });

  it('answers everything without a filter, and all protocols when none asked for is supported', () => {
    assert.equal(answerCapabilities(document, {}), document);
    assert.deepEqual(answerCapabilities(document, { protocols: ['brand'] }).supported_protocols, [
      'media_buy',
      'signals',
    ]);
  });
});
