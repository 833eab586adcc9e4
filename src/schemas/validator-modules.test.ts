import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { BundleCompiler } from './bundle-compiler.js';
import { loadSchemaBundle, type SchemaBundle } from './schema-bundle.js';
import { splitValidatorModules, stripProse } from './validator-modules.js';
import { mediaBuyRequest, packageRequest } from '../seller/sample-requests.js';

const require = createRequire(import.meta.url);

/** Ajv's errors without `schemaPath`: the one field a split part changes (issues never carry it). */
function outcome(fn: ValidateFunction, value: unknown): unknown {
  const ok = fn(value);
  const errors = (fn.errors ?? []).map((e) => {
    const rest: Record<string, unknown> = { ...e };
    delete rest['schemaPath'];
    return rest;
  });
  return { ok, errors };
}

/** The build's modules for `paths` (split-schema parts in modules of their own), written beside the package. */
function buildModules(bundle: SchemaBundle, paths: string[]) {
  const build = new BundleCompiler(bundle, { source: true });
  for (const p of paths) build.compile(p);
  const moduleOf = (id: string, schema?: unknown) =>
    build.parts.get(schema as object) ?? (bundle.pathOf(id) ?? '_unnamed.json').replace(/\.json$/, '.cjs');
  const { modules, roots } = splitValidatorModules(
    build.ajv!,
    paths.map((p) => bundle.idOf(p)),
    moduleOf,
  );
  // Beside the package, so the modules resolve ajv and ajv-formats as they do in dist/.
  const dir = mkdtempSync(fileURLToPath(new URL('./.validators-', import.meta.url)));
  for (const [file, code] of modules) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), code);
  }
  const load = (p: string) => {
    const root = roots.get(bundle.idOf(p))!;
    return (require(join(dir, root.module)) as Record<string, ValidateFunction>)[root.name]!;
  };
  return { modules, dir, load };
}

describe('splitValidatorModules', () => {
  it('writes modules that answer exactly as the validators compiled at run time', () => {
    const bundle = loadSchemaBundle('3.1');
    const tool = bundle.tool('create_media_buy')!;
    const paths = [tool.request, tool.response, ...Object.values(tool.async)];
    const { modules, dir, load } = buildModules(bundle, paths);
    try {
      // One module per schema file (or part), and no function defined twice across them.
      const defined = [...modules.values()].flatMap((code) =>
        [...code.matchAll(/^function (validate\d+)\(data, \{/gm)].map((m) => m[1]),
      );
      assert.equal(new Set(defined).size, defined.length);
      assert.ok(modules.size > 50, `${modules.size} modules`);

      const runtime = new BundleCompiler(bundle, { precompiled: false });
      const valid = {
        ...mediaBuyRequest([packageRequest('ctv_premium_sports', 5000)]),
        idempotency_key: 'k'.repeat(32),
      };
      const values = [
        valid,
        {},
        { ...valid, packages: [{ product_id: 7 }] },
        { ...valid, start_time: 'yesterday' },
        { ...valid, packages: [{ ...packageRequest('ctv_premium_sports', 5000), targeting_overlay: { geo: 1 } }] },
        null,
      ];
      for (const value of values) {
        assert.deepEqual(outcome(load(tool.request), value), outcome(runtime.compile(tool.request), value));
      }
      const working = load(tool.async.working!);
      assert.equal(working({ percentage: 'half' }), false);
      assert.equal(working({ percentage: 50 }), true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes the linear uniqueItems check into the modules, answering as at run time (sync_creatives)', () => {
    const bundle = loadSchemaBundle('3.1');
    const path = bundle.tool('sync_creatives')!.request;
    const { modules, dir, load } = buildModules(bundle, [path]);
    try {
      assert.ok([...modules.values()].some((code) => code.includes('function duplicateAt(data)')));
      const runtime = new BundleCompiler(bundle, { precompiled: false }).compile(path);
      const request = (ids: unknown[]) => ({
        idempotency_key: 'k'.repeat(32),
        account: { account_id: 'a' },
        creatives: [
          {
            creative_id: 'c',
            name: 'n',
            format_id: { agent_url: 'https://x.example', id: 'f' },
            assets: {},
            industry_identifiers: ids,
          },
        ],
      });
      const a = { type: 'ad_id', value: 'a' };
      for (const ids of [[a], [a, { type: 'ad_id', value: 'b' }], [a, { value: 'a', type: 'ad_id' }], [a, a, a]]) {
        assert.deepEqual(outcome(load(path), request(ids)), outcome(runtime, request(ids)));
      }
      assert.equal(load(path)(request([a, { value: 'a', type: 'ad_id' }])), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('loads a large file part by part, and its parts answer as the whole (get_adcp_capabilities)', () => {
    const bundle = loadSchemaBundle('3.1');
    const path = bundle.tool('get_adcp_capabilities')!.response;
    const { modules, dir, load } = buildModules(bundle, [path]);
    try {
      const file = path.replace(/\.json$/, '');
      const parts = [...modules.keys()].filter((m) => m.startsWith(`${file}.`));
      assert.ok(parts.length > 10, `${parts.length} parts`);
      const validate = load(path);
      const before = Object.keys(require.cache).filter((m) => m.startsWith(dir)).length;
      assert.equal(validate({}), false);
      const after = Object.keys(require.cache).filter((m) => m.startsWith(dir)).length;
      assert.ok(after - before < parts.length / 2, `{} loaded ${after - before} of ${parts.length} parts`);

      const runtime = new BundleCompiler(bundle, { precompiled: false }).compile(path);
      const answer = {
        status: 'completed',
        adcp: {
          major_versions: [3],
          supported_versions: ['3.0', '3.1'],
          idempotency: { supported: true, replay_ttl_seconds: 86400, in_flight_max_seconds: 300 },
        },
        supported_protocols: ['media_buy', 'creative'],
        webhook_signing: {
          supported: true,
          profile: 'adcp/webhook-signing/v1',
          algorithms: ['ed25519'],
          legacy_hmac_fallback: true,
        },
        account: { supported_billing: ['operator', 'agent'] },
        media_buy: {
          features: { async_media_buy: true, webhooks: true, creative_sync: true },
          channels: ['ctv', 'olv', 'display', 'podcast', 'dooh', 'social'],
        },
      };
      assert.equal(runtime(answer), true);
      const values: unknown[] = [
        answer,
        {},
        null,
        [answer],
        { ...answer, adcp: { ...answer.adcp, idempotency: { supported: true, replay_ttl_seconds: 'x' } } },
        { ...answer, adcp: { ...answer.adcp, idempotency: { supported: false, replay_ttl_seconds: 3600 } } },
        { ...answer, media_buy: { features: 5, channels: ['tv', 7], execution: { targeting: { geo_countries: 1 } } } },
        { ...answer, account: { supported_billing: [] }, supported_protocols: ['bogus'], extra: 1 },
        { ...answer, webhook_signing: { supported: 'yes', algorithms: ['none'] }, identity: { key_origins: 3 } },
        {
          ...answer,
          creative: { has_creative_library: 1 },
          governance: { property_features: [{}] },
          signals: { x: 1 },
          measurement: { metrics: [{ metric_id: 5 }] },
          request_signing: { supported: true, covers_content_digest: 'maybe' },
        },
      ];
      for (const value of values) assert.deepEqual(outcome(validate, value), outcome(runtime, value));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('stripProse', () => {
  it('drops descriptions, titles and examples but keeps properties so named', () => {
    const schema = {
      title: 'T',
      description: 'D',
      examples: [{ a: 1 }],
      properties: { description: { type: 'string', description: 'x' }, title: { enum: ['description'] } },
      required: ['description'],
    };
    assert.deepEqual(stripProse(schema), {
      properties: { description: { type: 'string' }, title: { enum: ['description'] } },
      required: ['description'],
    });
  });
});
