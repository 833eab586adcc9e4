// test-timeout-ms: 600000
// Issue 31, item 3: the reference seller (`adcp serve --sandbox --test-controller`) graded with
// adcp storyboard's runner (src/storyboard) on every storyboard it selects from the seller's
// capabilities (universal, media_buy and creative protocols, the claimed sales-guaranteed and
// sales-non-guaranteed specialisms and their scenarios), over MCP and over A2A, each wire against
// a seller of its own. The runner presents its bearer token (the live test kit's key is the
// seller's live principal, for comply-controller-mode-gate) and, as a conformant buyer
// does, signs what the seller requires signed (create_media_buy, its `required_for`, and any
// request registering an authenticated webhook: security.md, "Webhook callbacks") with the
// compliance runner's public test key. The seller runs behind an https origin (`--public-url
// https://localhost`), so it publishes its webhook signing keys through a brand.json declared as
// identity.brand_json_url: the runner reaches it through a fetch standing in for the TLS
// terminator (https://localhost/... forwarded to the seller on loopback, `Host` kept). Any failed
// step not listed below fails the test; each listed one names why. Storyboards and keys are read
// from ../shared at run time.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadComplianceDir, runStoryboards } from '../../src/storyboard/index.js';
import { noCapture, noCaptureDisagreements } from './no-capture.js';
import { createSigningFetch } from '../../src/signing/index.js';
import { createNodeHttpFetch } from '../../src/transport/node-http-fetch.js';
import { spawnServe, type ServeProcess } from '../interop/helpers/spawn-serve.js';

const SHARED = fileURLToPath(new URL('../../../shared/', import.meta.url));
const COMPLIANCE = `${SHARED}compliance/3.1.19/`;

/** `storyboard/phase/step` -> why it may fail. */
const KNOWN: Record<string, string> = {
  'media_buy_seller/delivery_reporting/simulate_and_verify/simulate_delivery': noCapture('setup/create_media_buy'),
  'media_buy_seller/performance_buy_flow/attributed_delivery_reporting/simulate_performance_delivery': noCapture(
    'create_performance_buy_cpa/create_media_buy_cpa',
  ),
};
/**
 * Steps passed over each wire (a ratchet: never fewer): 214 before adcp serve served every kit
 * tool with the kit's capabilities (proposals, conversions, audiences, catalogs, previews: 261),
 * 263 with its brand.json, 272 with buy actions and billing gates, 276 with
 * force_create_media_buy_arm advertised (create_media_buy_async).
 */
const PASSED_AT_LEAST = 276;

/** The compliance runner's public test key (signed-requests-runner.yaml), private half from keys.json. */
function runnerKey() {
  const keys = JSON.parse(readFileSync(`${SHARED}request-signing-vectors/keys.json`, 'utf8')) as {
    keys: Record<string, string>[];
  };
  const { _private_d_for_test_only: d, ...jwk } = keys.keys.find((k) => k.kid === 'test-ed25519-2026')!;
  return { keyid: 'test-ed25519-2026', alg: 'ed25519' as const, privateKey: { ...jwk, d: d! } };
}

/** The seller's public origin: a TLS terminator in front of it, played by `terminator` below. */
const PUBLIC = 'https://localhost';

/**
 * What a TLS terminator at PUBLIC does: a request to https://localhost/... goes to the seller on
 * loopback, its `Host` kept (the seller checks signatures against its public authority). Every
 * other URL (the runner's webhook receiver) is fetched as is.
 */
function terminator(local: () => string): { fetch: typeof fetch; close(): void } {
  const node = createNodeHttpFetch();
  const forward: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    if (!request.url.startsWith(`${PUBLIC}/`)) return await fetch(request);
    const headers = new Headers(request.headers);
    headers.set('host', new URL(PUBLIC).host);
    return await node.fetch(`${local()}${request.url.slice(PUBLIC.length)}`, {
      method: request.method,
      headers,
      redirect: 'manual',
      signal: request.signal,
      ...(request.body === null ? {} : { body: await request.arrayBuffer() }),
    });
  };
  return { fetch: forward, close: () => node.close() };
}

/**
 * A fetch signing what the sandbox requires signed: create_media_buy calls and requests carrying a
 * webhook `authentication` block. Every other request goes unsigned (the sandbox keeps at most 100
 * signatures per keyid in its replay window, the runner contract's grading cap). The
 * signed_requests vectors go out as the runner built them: they carry no bearer token, as the
 * vectors carry none (decision 0230).
 */
function selectiveSigningFetch(base: typeof fetch): typeof fetch {
  const signed = createSigningFetch(base, runnerKey());
  return (input, init) => {
    const body = typeof init?.body === 'string' ? init.body : '';
    const bearer = new Headers(init?.headers).has('authorization');
    const wanted = bearer && (body.includes('create_media_buy') || /"authentication"\s*:/.test(body));
    return wanted ? signed(input, init) : base(input, init);
  };
}

/** The live test kit's API key (comply-controller-mode-gate): the seller knows it as a live principal. */
const LIVE_KEY = /api_key:\s*"([^"]+)"/.exec(
  readFileSync(`${COMPLIANCE}test-kits/acme-outdoor-live.yaml`, 'utf8'),
)![1]!;

async function serve(): Promise<ServeProcess & { token: string }> {
  const token = `sandbox-${randomBytes(16).toString('hex')}`;
  // The runner's principal is onboarded passthrough-only (billing_gate_dispatch's test kit).
  const args = ['--sandbox', '--test-controller', '--live-principal', 'acme-live', '--public-url', PUBLIC];
  const served = await spawnServe([...args, '--passthrough-principal', 'sandbox-runner'], {
    // Kept out of the argument list, as the help advises; the runner's token and the live kit's.
    env: { ADCP_SERVE_TOKENS: `${token}=sandbox-runner,${LIVE_KEY}=acme-live` },
  });
  return { ...served, token };
}

describe('adcp serve --sandbox --test-controller against every storyboard it selects', () => {
  const started: ServeProcess[] = [];
  after(async () => {
    for (const seller of started) await seller.stop();
  });

  it('each recorded missing-capture cause holds in the storyboards as written', () => {
    assert.deepEqual(noCaptureDisagreements(loadComplianceDir(COMPLIANCE), KNOWN), []);
  });

  for (const protocol of ['mcp', 'a2a'] as const) {
    it(`over ${protocol}: no failed step outside the recorded list, at least ${PASSED_AT_LEAST} passed`, async () => {
      const seller = await serve();
      started.push(seller);
      const proxy = terminator(() => seller.url);
      const report = await runStoryboards({
        agentUrl: `${PUBLIC}/${protocol}`,
        protocol,
        compliance: loadComplianceDir(COMPLIANCE),
        auth: seller.token,
        fetch: selectiveSigningFetch(proxy.fetch),
        signingVectors: `${SHARED}request-signing-vectors`,
        budgetMs: 300_000,
      }).finally(() => proxy.close());
      const unexpected: string[] = [];
      for (const storyboard of report.storyboards) {
        for (const step of storyboard.steps) {
          if (step.verdict !== 'failed' && step.verdict !== 'harness_fault') continue;
          const key = `${storyboard.id}/${step.phase_id}/${step.step_id}`;
          if (KNOWN[key] === undefined) unexpected.push(`${key}: ${(step.error ?? step.fault ?? '').slice(0, 200)}`);
        }
      }
      assert.deepEqual(unexpected, [], `unexpected failed steps over ${protocol}`);
      assert.equal(report.cut_short, undefined);
      assert.ok(report.counts.steps.passed >= PASSED_AT_LEAST, `${report.counts.steps.passed} steps passed`);
      process.stdout.write(`# ${protocol}: ${JSON.stringify(report.counts.steps)}\n`);
    });
  }
});
