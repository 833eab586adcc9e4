// Hostile input never crashes the webhook path: it gets a typed refusal.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseDictionary } from '../../src/signing/structured-fields.js';
import { canonicalizeTargetUri } from '../../src/signing/canonicalize-target-uri.js';
import { verifyWebhookSignature } from '../../src/webhooks/verify-webhook-signature.js';
import { verifyWebhookHmac } from '../../src/webhooks/hmac.js';
import { createWebhookHandler } from '../../src/webhooks/create-webhook-handler.js';
import { MemoryDedupStore } from '../../src/store/memory-dedup-store.js';
import { canonicalJson } from '../../src/webhooks/canonical-json.js';
import { SECRET, makeKey, rawHmacRequest } from './helpers.js';

const RUNS = { numRuns: 300 };
const sfish = fc.stringMatching(/^[a-z0-9=();":@ ,\-_*.+/\\]{0,80}$/);

describe('webhook parsers (property)', () => {
  it('parseDictionary never throws', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), sfish), (text) => {
        parseDictionary(text);
      }),
      RUNS,
    );
  });

  it('canonicalizeTargetUri never throws and is idempotent on what it accepts', () => {
    fc.assert(
      fc.property(fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string()), (url) => {
        const once = canonicalizeTargetUri(url);
        if (once.ok) {
          const twice = canonicalizeTargetUri(once.targetUri);
          assert.equal(twice.ok && twice.targetUri, once.targetUri);
        }
      }),
      RUNS,
    );
  });

  it('canonicalJson is stable under member reordering', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        assert.equal(canonicalJson(reversed), canonicalJson(obj));
      }),
      RUNS,
    );
  });
});

describe('verifiers (property)', () => {
  const key = makeKey('prop');
  it('verifyWebhookSignature answers { ok: false } to arbitrary headers, never throws', async () => {
    await fc.assert(
      fc.asyncProperty(sfish, sfish, fc.string(), async (input, signature, body) => {
        const result = await verifyWebhookSignature(
          {
            method: 'POST',
            url: 'https://buyer.example/hook',
            headers: { 'Signature-Input': `sig1=${input}`, Signature: `sig1=${signature}`, 'Content-Digest': 'x' },
            body,
          },
          { jwks: [key.publicJwk], now: 1_800_000_000 },
        );
        assert.equal(result.ok, false);
      }),
      RUNS,
    );
  });

  it('verifyWebhookHmac answers { ok: false } to arbitrary timestamps and signatures', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.constant(null)),
        fc.oneof(fc.string(), fc.constant(undefined)),
        fc.string(),
        (timestamp, signature, body) => {
          assert.equal(
            verifyWebhookHmac({ secret: SECRET, rawBody: body, timestamp, signature, now: 1_800_000_000 }).ok,
            false,
          );
        },
      ),
      RUNS,
    );
  });
});

describe('createWebhookHandler (property)', () => {
  it('answers any correctly signed body with 200 or a 4xx, never a 5xx', async () => {
    const handler = createWebhookHandler({
      signature: { scheme: 'hmac', secret: SECRET },
      dedup: new MemoryDedupStore(),
    });
    const bodies = fc.oneof(
      fc.string(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .record({
          idempotency_key: fc.string(),
          operation_id: fc.string(),
          task_id: fc.string(),
          task_type: fc.string(),
          status: fc.string(),
          timestamp: fc.string(),
        })
        .map((v) => JSON.stringify(v)),
      fc.record({ status: fc.record({ state: fc.string() }), id: fc.string() }).map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const response = await handler.fetch(rawHmacRequest(body));
        assert.ok(
          response.status === 200 || (response.status >= 400 && response.status < 500),
          `${response.status} for ${body}`,
        );
      }),
      RUNS,
    );
  });
});
