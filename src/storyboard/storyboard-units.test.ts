// The storyboard runner's pure parts: field paths, placeholders, conditions and the authored checks.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolveAll, resolvePath, pointerOf, deepSubset } from './paths.js';
import { evaluateCondition, substitute, UnresolvedSubstitution, type SubstitutionScope } from './substitute.js';
import { grade, type Observation } from './checks.js';
import { progressLine, renderHtml, renderJunit, renderSummary } from './report.js';
import type { RunReport } from './types.js';
import {
  assertJwksPurpose,
  authServerMetadataUrl,
  fetchBrandJwks,
  protectedResourceUrl,
  refusal,
} from './runner-tasks.js';
import { expandAssetDirectives } from './request-builder.js';
import { createHash, generateKeyPairSync, sign, verify } from 'node:crypto';
import { planVector, resignHeaders, type SigningVector } from './signed-vectors.js';
import { buildSignatureBase } from '../signing/signature-base.js';
import { parseDictionary } from '../signing/structured-fields.js';

const scope = (over: Partial<SubstitutionScope> = {}): SubstitutionScope => ({
  context: {},
  priorSteps: new Map(),
  testKit: {},
  generated: new Map(),
  ...over,
});

const seen = (body: unknown, over: Partial<Observation> = {}): Observation => ({
  tool: 't',
  status: 'completed',
  body,
  request: {},
  context: {},
  flags: new Map(),
  protocol: 'mcp',
  agentUrl: 'http://127.0.0.1:1/mcp',
  ...over,
});

describe('storyboard field paths', () => {
  it('reads keys, indexes, wildcards and .length, with the RFC 6901 pointer', () => {
    const body = {
      products: [
        { id: 'a', f: [{ id: 1 }, { id: 2 }] },
        { id: 'b', f: [] },
      ],
    };
    assert.deepEqual(resolvePath(body, 'products[1].id'), { value: 'b', pointer: '/products/1/id' });
    assert.deepEqual(resolvePath(body, 'products.length'), { value: 2, pointer: '/products/length' });
    assert.deepEqual(
      resolveAll(body, 'products[*].f[*].id').map((f) => f.value),
      [1, 2],
    );
    assert.equal(resolvePath(body, 'products[2].id'), undefined);
    assert.equal(pointerOf('a.b~c/d[3]'), '/a/b~0c~1d/3');
  });
  it('matches objects and arrays as deep subsets', () => {
    assert.ok(deepSubset({ a: 1 }, { a: 1, b: 2 }));
    assert.ok(!deepSubset({ a: 1, c: 3 }, { a: 1, b: 2 }));
    assert.ok(deepSubset([{ a: 1 }], [{ a: 2 }, { a: 1, z: 0 }]));
  });
});

describe('storyboard placeholders', () => {
  it('keeps the type of a whole-string token and interpolates inside strings', () => {
    const out = substitute(
      { n: '$context.count', s: 'id-$context.id', k: '$test_kit.auth.api_key', list: ['$context.id'] },
      scope({ context: { count: 3, id: 'x' }, testKit: { auth: { api_key: 'demo-k' } } }),
    );
    assert.deepEqual(out, { n: 3, s: 'id-x', k: 'demo-k', list: ['x'] });
  });
  it('gives one UUID per $generate alias and per-step webhook URLs', () => {
    const s = scope({ webhookUrl: (key) => `http://r/${key}` });
    const out = substitute(
      { a: '$generate:uuid_v4#one', b: '$generate:uuid_v4#one', u: '{{runner.webhook_url:step}}' },
      s,
    ) as Record<string, string>;
    assert.equal(out['a'], out['b']);
    assert.match(out['a'] ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(out['u'], 'http://r/step');
  });
  it('refuses to send an unresolved token', () => {
    assert.throws(() => substitute({ a: '$context.missing' }, scope()), UnresolvedSubstitution);
    assert.throws(() => substitute({ u: '{{runner.webhook_url:x}}' }, scope()), UnresolvedSubstitution);
    assert.throws(() => substitute({ p: '{{prior_step.search.id}}' }, scope()), UnresolvedSubstitution);
  });
  it('evaluates skip_if and contributes_if', () => {
    const roots = {
      context: { supports_evaluator: true, a: 'x', b: 'x' },
      test_kit: { auth: {} },
      prior_step: { probe: { passed: true } },
    };
    assert.equal(evaluateCondition('!test_kit.auth.api_key', roots), true);
    assert.equal(evaluateCondition('context.supports_evaluator != true || !context.build_capability_id', roots), true);
    assert.equal(evaluateCondition("test_kit.commercial_relationship != 'passthrough_only'", roots), true);
    assert.equal(evaluateCondition('!context.a || context.a == context.b', roots), true);
    assert.equal(evaluateCondition('prior_step.probe.passed', roots), true);
    assert.throws(() => evaluateCondition('process.env.X', roots));
  });
});

describe('storyboard checks', () => {
  it('explains a failed field_value with pointer, expected and actual', () => {
    const out = grade(
      { check: 'field_value', path: 'context.correlation_id', value: 'a', description: 'echo' },
      seen({ context: { correlation_id: 'b' } }),
    );
    assert.equal(out.verdict, 'failed');
    assert.equal(out.json_pointer, '/context/correlation_id');
    assert.equal(out.expected, 'a');
    assert.equal(out.actual, 'b');
  });
  it('grades field_present, field_absent, field_value_or_absent and field_contains', () => {
    assert.equal(grade({ check: 'field_present', path: 'a' }, seen({ a: null })).verdict, 'failed');
    assert.equal(grade({ check: 'field_absent', path: 'a' }, seen({ b: 1 })).verdict, 'passed');
    assert.equal(grade({ check: 'field_value_or_absent', path: 'r', value: false }, seen({})).verdict, 'passed');
    assert.equal(
      grade({ check: 'field_value_or_absent', path: 'r', value: false }, seen({ r: true })).verdict,
      'failed',
    );
    assert.equal(
      grade({ check: 'field_contains', path: 'xs[*].k', value: 'b' }, seen({ xs: [{ k: 'a' }, { k: 'b' }] })).verdict,
      'passed',
    );
    assert.equal(
      grade({ check: 'field_contains', path: 'xs', value: { k: 'b' } }, seen({ xs: [{ k: 'b', z: 1 }] })).verdict,
      'passed',
    );
  });
  it('reads error codes wherever the transport put them; no value means any typed code', () => {
    assert.equal(
      grade({ check: 'error_code', value: 'NOT_FOUND' }, seen({}, { errorCode: 'NOT_FOUND' })).verdict,
      'passed',
    );
    assert.equal(
      grade({ check: 'error_code', allowed_values: ['A', 'B'] }, seen({}, { errorCode: 'C' })).verdict,
      'failed',
    );
    assert.equal(grade({ check: 'error_code' }, seen({}, { errorCode: 'C' })).verdict, 'passed');
    assert.equal(grade({ check: 'error_code' }, seen({})).verdict, 'failed');
  });
  it('grades HTTP checks on the observed status', () => {
    assert.equal(
      grade({ check: 'http_status_in', allowed_values: [401, 403] }, seen(undefined, { httpStatus: 401 })).verdict,
      'passed',
    );
    assert.equal(
      grade({ check: 'http_status_in', allowed_values: [401, 403] }, seen(undefined, { httpStatus: 200 })).verdict,
      'failed',
    );
    const challenge = grade(
      { check: 'on_401_require_header', value: 'www-authenticate' },
      seen(undefined, { httpStatus: 401, httpHeaders: {} }),
    );
    assert.equal(challenge.verdict, 'failed');
  });
  it('compares with captured context, and passes when the capture was skipped', () => {
    assert.equal(
      grade(
        { check: 'field_equals_context', path: 'id', context_key: 'id' },
        seen({ id: 'x' }, { context: { id: 'x' } }),
      ).verdict,
      'passed',
    );
    const absent = grade({ check: 'field_equals_context', path: 'id', context_key: 'id' }, seen({ id: 'x' }));
    assert.equal(absent.verdict, 'passed');
    assert.match(absent.note ?? '', /context_key_absent/);
    assert.equal(
      grade({ check: 'field_less_than', path: 'n', context_key: 'm' }, seen({ n: 2 }, { context: { m: 3 } })).verdict,
      'passed',
    );
  });
  it('grades a check kind it does not know as not applicable, never failed', () => {
    const out = grade({ check: 'upstream_traffic', description: 'x' }, seen({}));
    assert.equal(out.verdict, 'not_applicable');
    assert.match(out.note ?? '', /does not implement/);
  });
  it('resolves refs across steps', () => {
    const out = grade(
      {
        check: 'refs_resolve',
        source: { from: 'context', path: 'products[*].format_ids[*]' },
        target: { from: 'current_step', path: 'formats[*].format_id' },
        match_keys: ['agent_url', 'id'],
      },
      seen(
        { formats: [{ format_id: { agent_url: 'https://a/', id: 'f1' } }] },
        {
          context: {
            products: [
              {
                format_ids: [
                  { agent_url: 'https://a', id: 'f1' },
                  { agent_url: 'https://a', id: 'f2' },
                ],
              },
            ],
          },
        },
      ),
    );
    assert.equal(out.verdict, 'failed');
    assert.deepEqual(out.actual, { missing: [{ agent_url: 'https://a', id: 'f2' }] });
  });
});

describe('storyboard reports', () => {
  const hostile = '<script>alert(1)</script>\u001b[2J\u0000"&\u202e';
  const report: RunReport = {
    agent: 'http://127.0.0.1:1/mcp',
    protocol: 'mcp',
    release: '3.1.19',
    adcp_version: '3.1',
    compliance_source: '/x',
    started_at: '2026-01-01T00:00:00.000Z',
    duration_ms: 1000,
    counts: {
      storyboards: { passed: 0, failed: 1, not_applicable: 0, skipped: 0, harness_fault: 0 },
      steps: { passed: 0, failed: 1, not_applicable: 0, skipped: 0, harness_fault: 0 },
    },
    notices: [],
    exit_code: 1,
    storyboards: [
      {
        id: 'sb',
        title: hostile,
        file: 'universal/sb.yaml',
        kind: 'universal',
        verdict: 'failed',
        duration_ms: 5,
        sessions: 1,
        selected_because: 'universal',
        steps: [
          {
            phase_id: 'p',
            step_id: 's',
            title: hostile,
            task: 'get_products',
            verdict: 'failed',
            request: { tool: 'get_products', args: { brief: hostile } },
            response: { status: 'completed', body: { name: hostile } },
            validations: [
              {
                check: 'field_value',
                description: 'd',
                verdict: 'failed',
                severity: 'required',
                json_pointer: '/name',
                expected: 'x',
                actual: hostile,
              },
            ],
            duration_ms: 1,
            source: { storyboard: 'universal/sb.yaml', location: 'phases[0].steps[0]' },
          },
        ],
      },
    ],
  };
  it('escapes what the agent sent in HTML, XML and the terminal', () => {
    const page = renderHtml(report);
    assert.doesNotMatch(page, /<script>/);
    assert.match(page, /&lt;script&gt;/);
    const junit = renderJunit(report);
    assert.ok(!junit.includes('<script>') && !junit.includes('\u0000') && !junit.includes('\u001b'));
    assert.match(junit, /<failure message="field_value: expected/);
    const text = renderSummary(report);
    assert.ok(!text.includes('\u001b') && !text.includes('\u0000') && !text.includes('\u202e'));
    assert.match(text, /expected "x"/);
    assert.match(text, /verdict: the agent failed/);
  });

  it('says why a storyboard is a harness fault in its progress line, and that a run of faults was not graded', () => {
    const step = report.storyboards[0]!.steps[0]!;
    const faulted: RunReport = {
      ...report,
      counts: {
        storyboards: { passed: 0, failed: 0, not_applicable: 0, skipped: 0, harness_fault: 1 },
        steps: { passed: 0, failed: 0, not_applicable: 0, skipped: 0, harness_fault: 1 },
      },
      exit_code: 0,
      storyboards: [
        {
          ...report.storyboards[0]!,
          verdict: 'harness_fault',
          steps: [{ ...step, verdict: 'harness_fault', validations: [], fault: 'environment: ECONNRESET' }],
        },
      ],
    };
    assert.match(
      progressLine(faulted.storyboards[0]!, 0, 1),
      /HARN sb \(0 passed, 1 harness, 0\.0 s\): environment: ECONNRESET$/,
    );
    assert.match(
      renderSummary(faulted),
      /verdict: nothing the agent owns failed, but 1 storyboard\(s\) were not fully graded/,
    );
    // The HTML report shows why beside a storyboard that was not applicable or a harness fault,
    // without opening it, and says what each verdict asks of the seller.
    const page = renderHtml({
      ...faulted,
      storyboards: [
        ...faulted.storyboards,
        { ...report.storyboards[0]!, id: 'na', verdict: 'not_applicable', steps: [], detail: 'controller: <x>' },
      ],
    });
    assert.match(page, /<summary>[^\n]*<b>sb<\/b>[^\n]*<small class="why">environment: ECONNRESET<\/small><\/summary>/);
    assert.match(page, /<summary>[^\n]*<b>na<\/b>[^\n]*<small class="why">controller: &lt;x&gt;<\/small><\/summary>/);
    assert.match(page, /harness fault<\/span>: this runner or the environment/);
    assert.match(page, /<p><b>Nothing the agent owns failed, but 1 storyboard\(s\) were not fully graded/);
    const none: RunReport = { ...faulted, storyboards: [], cut_short: 'could not discover the agent at x' };
    assert.match(renderSummary(none), /CUT SHORT: could not discover the agent at x\n/);
  });
});

describe('runner task fetches (decision 0227)', () => {
  const rules = {
    agentUrl: 'http://127.0.0.1:3000/mcp',
    allowHttp: false,
    timeoutMs: 1000,
    signal: new AbortController().signal,
    fetch: globalThis.fetch,
  };
  it("allows the agent's own origin, https public hosts, and the rest only with allowHttp", () => {
    assert.equal(refusal('http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp', rules), undefined);
    assert.equal(refusal('https://auth.example.com/.well-known/oauth-authorization-server', rules), undefined);
    assert.match(refusal('http://127.0.0.1:4000/brand.json', rules) ?? '', /--allow-http/);
    assert.match(refusal('https://169.254.169.254/latest', rules) ?? '', /special-use/);
    assert.match(refusal('http://auth.example.com/', rules) ?? '', /not https/);
    assert.equal(refusal('http://127.0.0.1:4000/brand.json', { ...rules, allowHttp: true }), undefined);
  });
  it('builds the RFC 9728 and RFC 8414 well-known URLs', () => {
    assert.equal(
      protectedResourceUrl('https://agent.example.com/mcp'),
      'https://agent.example.com/.well-known/oauth-protected-resource/mcp',
    );
    assert.equal(
      authServerMetadataUrl('https://auth.example.com/tenant1'),
      'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
    );
  });
  it('grades JWKS key purposes with the storyboard failure codes', () => {
    const keys = (list: object[]) => ({ jwks: { keys: list as never[] } });
    assert.equal(assertJwksPurpose({}).check, 'webhook_signing_keys_unpublished');
    assert.equal(
      assertJwksPurpose(keys([{ kid: 'a', adcp_use: 'governance-signing' }])).check,
      'webhook_signing_keys_wrong_purpose',
    );
    assert.equal(
      assertJwksPurpose(keys([{ kid: 'a', adcp_use: 'request-signing', revoked: true }])).check,
      'webhook_signing_keys_all_revoked',
    );
    assert.equal(assertJwksPurpose(keys([{ kid: 'a', adcp_use: 'webhook-signing' }])).verdict, 'passed');
  });
  it('tells a local run without a brand.json how to get one: --public-url, --brand-json, --allow-http', async () => {
    // Nothing is fetched: no brand.json is named (fetch would throw).
    const none = { ...rules, fetch: (() => Promise.reject(new Error('no fetch'))) as typeof fetch };
    for (const agentUrl of ['http://127.0.0.1:3917/mcp', 'http://seller.example/mcp', 'https://localhost:8443/mcp']) {
      const keys = await fetchBrandJwks({}, undefined, { ...none, agentUrl });
      assert.equal(keys.failed?.code, 'brand_json_unreachable', agentUrl);
      const hint = keys.failed?.hint ?? '';
      for (const option of ['--public-url', '--brand-json URL', '--allow-http'])
        assert.ok(hint.includes(option), `${agentUrl}: ${option}`);
      assert.ok(hint.includes(`${new URL(agentUrl).origin}/.well-known/jwks.json`), agentUrl);
      // The steps that read the keys carry it, and the terminal prints it whole.
      const purpose = assertJwksPurpose(keys);
      assert.equal(purpose.note, hint);
      const report: RunReport = {
        agent: agentUrl,
        protocol: 'mcp',
        release: '3.1.19',
        adcp_version: '3.1',
        compliance_source: 'x',
        started_at: new Date(0).toISOString(),
        duration_ms: 0,
        notices: [],
        exit_code: 1,
        counts: {
          storyboards: { passed: 0, failed: 1, not_applicable: 0, skipped: 0, harness_fault: 0 },
          steps: { passed: 0, failed: 1, not_applicable: 0, skipped: 0, harness_fault: 0 },
        },
        storyboards: [
          {
            id: 'webhook_emission',
            title: 'w',
            file: 'universal/webhook-emission.yaml',
            kind: 'universal',
            verdict: 'failed',
            selected_because: 'universal',
            duration_ms: 0,
            sessions: 1,
            steps: [
              {
                phase_id: 'signing_keys_published',
                step_id: 'assert_webhook_signing_key_present',
                title: 't',
                task: 'assert_jwks_purpose',
                verdict: 'failed',
                validations: [purpose],
                duration_ms: 0,
                source: { storyboard: 'universal/webhook-emission.yaml', location: 'phases[8].steps[1]' },
              },
            ],
          },
        ],
      };
      assert.ok(renderSummary(report).includes(`note     ${hint}\n`), 'the whole hint, not cut');
    }
    // A public https agent gets the failure without local advice; a named brand.json is fetched.
    const remote = await fetchBrandJwks({}, undefined, { ...none, agentUrl: 'https://seller.example/mcp' });
    assert.equal(remote.failed?.code, 'brand_json_unreachable');
    assert.equal(remote.failed?.hint, undefined);
    assert.equal(assertJwksPurpose(remote).note, undefined);
    const named = await fetchBrandJwks({}, 'https://seller.example/brand.json', {
      ...none,
      agentUrl: 'http://127.0.0.1:3917/mcp',
    });
    assert.match(named.failed?.detail ?? '', /could not be fetched: no fetch/);
    assert.equal(named.failed?.hint, undefined);
  });
});

describe('$build_assets_from_format', () => {
  const formatId = { agent_url: 'https://creative.example', id: 'display_300x250' };
  const formats = [
    {
      format_id: formatId,
      assets: [
        {
          item_type: 'individual',
          asset_id: 'main',
          asset_type: 'image',
          required: true,
          requirements: { min_width: 300, max_width: 300, min_height: 250, max_height: 250 },
        },
        { item_type: 'individual', asset_id: 'landing', asset_type: 'url', required: true },
        { item_type: 'individual', asset_id: 'logo', asset_type: 'image', required: false },
      ],
    },
  ];
  const kit = {
    assets: {
      images: [
        { url: 'https://a.example/728.jpg', width: 728, height: 90 },
        { url: 'https://a.example/300.jpg', width: 300, height: 250 },
      ],
      click_url: 'https://acme.example/sale',
    },
  };
  it('replaces the directive with the required slots, filled from the test kit', () => {
    const args = {
      creatives: [{ creative_id: 'c1', format_id: formatId, assets: { $build_assets_from_format: formatId } }],
    };
    const done = expandAssetDirectives(args, formats, kit);
    assert.equal(done.problem, undefined);
    assert.deepEqual(args.creatives[0]?.assets, {
      main: { asset_type: 'image', url: 'https://a.example/300.jpg', width: 300, height: 250 },
      landing: { asset_type: 'url', url: 'https://acme.example/sale' },
    });
    assert.equal(done.built[0]?.pointer, '/creatives/0/assets');
  });
  it('says which required slot the kit cannot fill, and an unknown format', () => {
    const small = { assets: { images: [{ url: 'https://a.example/1.jpg', width: 1, height: 1 }] } };
    const args = { creatives: [{ assets: { $build_assets_from_format: formatId } }] };
    assert.match(expandAssetDirectives(args, formats, small).problem ?? '', /required image slot main/);
    const other = { creatives: [{ assets: { $build_assets_from_format: { agent_url: 'x', id: 'y' } } }] };
    assert.match(expandAssetDirectives(other, formats, kit).problem ?? '', /not among the formats/);
  });
});

describe('signed_requests vectors (decision 0230)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = {
    ...(publicKey.export({ format: 'jwk' }) as Record<string, string>),
    kid: 'k1',
    _private_d_for_test_only: (privateKey.export({ format: 'jwk' }) as Record<string, string>)['d'] ?? '',
  };
  const now0 = 1_776_520_800;
  const vectorUrl = 'https://seller.example.com/adcp/create_media_buy';
  const body = '{"plan_id":"p"}';
  const inputOf = (tag: string, expires = now0 + 300) =>
    `sig1=("@method" "@target-uri" "@authority" "content-type");created=${now0};expires=${expires};nonce="AAAAAAAAAAAAAAAAAAAAAA";keyid="k1";alg="ed25519";tag="${tag}"`;
  const signedOver = (input: string) => {
    const list = parseDictionary(input)?.get('sig1');
    assert.ok(list?.kind === 'inner-list');
    const base = buildSignatureBase(
      { method: 'POST', url: vectorUrl, headers: { 'content-type': 'application/json' } },
      list,
    );
    assert.ok(base.ok);
    return sign(null, Buffer.from(base.base), privateKey).toString('base64url');
  };
  const vector = (headers: Record<string, string>, over: Partial<SigningVector> = {}): SigningVector => ({
    file: 'negative/x.json',
    kind: 'negative',
    name: 'x',
    reference_now: now0,
    request: { method: 'POST', url: vectorUrl, headers: { 'content-type': 'application/json', ...headers }, body },
    verifier_capability: {},
    expected: { success: false, error_code: 'request_signature_tag_invalid' },
    ...over,
  });
  const live = { method: 'POST', url: 'http://127.0.0.1:3000/mcp', body: '{"jsonrpc":"2.0"}' };

  it('re-signs a vector whose signature verifies, for the live URL, at now, with a fresh nonce', () => {
    const input = inputOf('adcp/request-signing/v1');
    const v = vector({ 'signature-input': input, signature: `sig1=:${signedOver(input)}:` }, { kind: 'positive' });
    const out = resignHeaders(v, live, [jwk], { now: now0 + 1000 });
    assert.equal(out.how, 'resigned');
    assert.match(out.headers['signature-input'] ?? '', /;created=1776521800;expires=1776522100;nonce="(?!A{22})/);
    const list = parseDictionary(out.headers['signature-input'] ?? '')?.get('sig1');
    assert.ok(list?.kind === 'inner-list');
    const base = buildSignatureBase({ ...live, headers: out.headers }, list);
    assert.ok(base.ok);
    const bytes = Buffer.from(/sig1=:([^:]+):/.exec(out.headers['signature'] ?? '')?.[1] ?? '', 'base64url');
    assert.equal(verify(null, Buffer.from(base.base), publicKey, bytes), true);
  });
  it("keeps a placeholder signature and the vector's defects: tag, window", () => {
    const input = inputOf('example-org/signing/v1', now0);
    const signature = `sig1=:${Buffer.alloc(64).toString('base64url')}:`;
    const out = resignHeaders(vector({ 'signature-input': input, signature }), live, [jwk], { now: now0 + 50 });
    assert.equal(out.how, 'kept');
    assert.equal(out.headers['signature'], signature);
    assert.match(
      out.headers['signature-input'] ?? '',
      /;created=1776520850;expires=1776520850;.*tag="example-org\/signing\/v1"/,
    );
  });
  it('keeps a Content-Digest that lies about the body, recomputes one that does not', () => {
    const lie = `sha-256=:${Buffer.alloc(32).toString('base64url')}:`;
    assert.equal(
      resignHeaders(vector({ 'content-digest': lie }), live, [jwk], { now: now0 }).headers['content-digest'],
      lie,
    );
    const truth = `sha-256=:${createHash('sha256').update(body).digest('base64url')}:`;
    assert.equal(
      resignHeaders(vector({ 'content-digest': truth }), live, [jwk], { now: now0 }).headers['content-digest'],
      `sha-256=:${createHash('sha256').update(live.body).digest('base64url')}:`,
    );
  });
  it('says why a form cannot reach a live agent', () => {
    const agent = {
      endpoint: 'http://127.0.0.1:3000/mcp',
      capability: { required_for: ['create_media_buy'] },
      tools: undefined,
    };
    const plan = (url: string, over: Partial<SigningVector> = {}) =>
      planVector(vector({}, { request: { method: 'POST', url, headers: {}, body }, ...over }), agent);
    assert.match(JSON.stringify(plan('https://seller.example.com:443/adcp/create_media_buy')), /default port/);
    assert.match(JSON.stringify(plan('https://seller.example.com/adcp/./create_media_buy')), /request path/);
    assert.match(JSON.stringify(plan('https://[2001:db8::1]/adcp/create_media_buy')), /IPv6 literal/);
    assert.match(JSON.stringify(plan(vectorUrl, { jwks_override: { keys: [] } })), /jwks_override/);
    assert.deepEqual(plan(`${vectorUrl}?b=2&a=1`), {
      send: true,
      form: 'call',
      operation: 'create_media_buy',
      args: { plan_id: 'p' },
      query: 'b=2&a=1',
      notes: [],
    });
  });
});
