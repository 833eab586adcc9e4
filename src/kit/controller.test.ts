// seed_product's product (comply-test-controller.md, seed_product: "fixture: Product shape"): every
// 3.1 Product field a storyboard fixture carries is kept, defaults fill only what it leaves out,
// and what the 3.1 schemas refuse is dropped or refused, never served. Schemas and storyboards
// are read from ../shared (scripts/run-tests.mjs sets ADCP_SCHEMAS_DIR).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { JsonObject } from '../core/types.js';
import { ControllerError } from '../server/tools/test-controller.js';
import { kitScenarios, PRODUCT_FIELDS, productIssues, seededProduct } from './controller.js';
import { MemoryKitRecords } from './records.js';

const SHARED = fileURLToPath(new URL('../../../shared/', import.meta.url));
const COMPLIANCE = join(SHARED, 'compliance/3.1.19');

/** Every `fixtures.products[]` entry of the 3.1.19 storyboards, by file. */
function storyboardProducts(): { file: string; product: JsonObject }[] {
  const out: { file: string; product: JsonObject }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.yaml')) {
        const doc = parse(readFileSync(path, 'utf8')) as { fixtures?: { products?: JsonObject[] } } | null;
        for (const product of doc?.fixtures?.products ?? [])
          out.push({ file: path.slice(COMPLIANCE.length + 1), product });
      }
    }
  };
  walk(COMPLIANCE);
  return out;
}

/** The fields the kit rewrites into the 3.1 shape (channels, properties, format ids, pricing) or caps. */
const NORMALIZED = new Set([
  'product_id',
  'name',
  'description',
  'channels',
  'publisher_properties',
  'format_ids',
  'pricing_options',
  'delivery_type',
]);

/** The issues of a seeded product: it has a pricing option from the start (the kit's default when the fixture names none). */
const issues = (product: JsonObject) => productIssues(product);

function refused(error: unknown): boolean {
  return error instanceof ControllerError && error.code === 'INVALID_PARAMS';
}

describe('seededProduct', () => {
  it('knows the 3.1 Product fields as core/product.json lists them', () => {
    const schema = JSON.parse(readFileSync(join(SHARED, 'schemas/3.1.19/core/product.json'), 'utf8')) as {
      properties: Record<string, unknown>;
    };
    assert.deepEqual([...PRODUCT_FIELDS].sort(), Object.keys(schema.properties).sort());
  });

  it("keeps every 3.1 Product field of the storyboards' fixtures, and the result is a valid 3.1 product", () => {
    const products = storyboardProducts();
    assert.ok(products.length >= 30, `${products.length} fixture products`);
    const kept = new Set<string>();
    for (const { file, product } of products) {
      const { product_id: id, ...fixture } = product;
      const seeded = seededProduct(String(id), fixture);
      assert.deepEqual(issues(seeded), [], `${file} ${String(id)}`);
      for (const [field, value] of Object.entries(fixture)) {
        if (!PRODUCT_FIELDS.has(field) || NORMALIZED.has(field)) continue;
        if (field === 'reporting_capabilities') {
          // Over the kit's defaults for the required fields the fixture leaves out.
          for (const [k, v] of Object.entries(value as JsonObject))
            assert.deepEqual((seeded[field] as JsonObject)[k], v, `${file} ${String(id)} ${field}.${k}`);
        } else assert.deepEqual(seeded[field], value, `${file} ${String(id)} ${field}`);
        kept.add(field);
      }
      // A product declaring format_options gets no made-up format id.
      if (fixture.format_ids === undefined && fixture.format_options !== undefined)
        assert.equal(seeded.format_ids, undefined, `${file} ${String(id)}`);
    }
    // The fields the task names are among them.
    for (const field of ['signal_targeting_allowed', 'metric_optimization', 'format_options', 'creative_policy'])
      assert.ok(kept.has(field), field);
  });

  it('fills defaults only where the fixture is silent', () => {
    const seeded = seededProduct('p1', {});
    assert.deepEqual(issues(seeded), []);
    assert.equal(seeded.delivery_type, 'non_guaranteed');
    assert.deepEqual(seeded.channels, ['display']);
    assert.deepEqual(seeded.format_ids, [
      { agent_url: 'https://creative.adcontextprotocol.org', id: 'display_300x250' },
    ]);
    assert.equal((seeded.reporting_capabilities as JsonObject).expected_delay_minutes, 240);
    // core/product.json: pricing_options has minItems 1; the kit's default stands in (decision 0317).
    assert.deepEqual(
      (seeded.pricing_options as JsonObject[]).map((o) => [o.pricing_option_id, o.pricing_model, o.floor_price]),
      [['p1-cpm', 'cpm', 1]],
    );
    // A pre-3.0 `rate` is the option's fixed price.
    const rated = seededProduct('p8', {
      pricing_options: [{ pricing_option_id: 'flat5', pricing_model: 'cpm', rate: 5, currency: 'USD' }],
    });
    assert.deepEqual(issues(rated), []);
    assert.deepEqual(rated.pricing_options, [
      { pricing_option_id: 'flat5', pricing_model: 'cpm', currency: 'USD', fixed_price: 5 },
    ]);
    const own = seededProduct('p2', { reporting_capabilities: { expected_delay_minutes: 60 } });
    assert.equal((own.reporting_capabilities as JsonObject).expected_delay_minutes, 60);
    assert.equal((own.reporting_capabilities as JsonObject).timezone, 'UTC');
  });

  it('drops what the 3.1 schemas refuse and what is no Product field; refuses a fixture that cannot be a product', () => {
    const hostile: JsonObject = JSON.parse(
      '{"signal_targeting_allowed":"yes","metric_optimization":5,"max_optimization_goals":-1,' +
        '"is_custom":true,"exclusivity":"none","kit_account_id":"acct_other","seeded_at":1,"fixture":{},' +
        '"__proto__":{"polluted":true},"constructor":"x","status":"active"}',
    ) as JsonObject;
    const seeded = seededProduct('p3', hostile);
    assert.deepEqual(issues(seeded), []);
    for (const field of ['signal_targeting_allowed', 'metric_optimization', 'max_optimization_goals'])
      assert.equal(field in seeded, false, field);
    for (const field of ['kit_account_id', 'seeded_at', 'fixture', 'status', 'constructor'])
      assert.equal(Object.hasOwn(seeded, field), false, field);
    assert.equal(Object.getPrototypeOf(seeded), Object.prototype);
    assert.equal(({} as JsonObject).polluted, undefined);
    assert.equal(seeded.is_custom, true);
    assert.equal(seeded.exclusivity, 'none');
    // Signal targeting rules without signal_targeting_allowed: true (core/product.json allOf):
    // the product as a whole is refused, so none of the fixture's extra fields is kept.
    const inconsistent = seededProduct('p4', {
      signal_targeting_rules: { resolution_model: 'direct_targeting', selection_mode: 'optional' },
      is_custom: true,
    });
    assert.deepEqual(issues(inconsistent), []);
    assert.equal(inconsistent.signal_targeting_rules, undefined);
    assert.equal(inconsistent.is_custom, undefined);
    // What the kit builds from the fixture must itself be a product.
    assert.throws(() => seededProduct('p5', { reporting_capabilities: { available_metrics: 'all' } }), refused);
    assert.throws(() => seededProduct('p6', { publisher_properties: [1] }), refused);
    // Without 3.1 schemas at hand, the kit's own product only.
    const unchecked = seededProduct('p7', { is_custom: true, signal_targeting_allowed: true }, () => undefined);
    assert.equal(unchecked.is_custom, undefined);
    assert.equal(unchecked.signal_targeting_allowed, undefined);
  });

  it('seed_product stores the kept fields and answers INVALID_PARAMS for a fixture that cannot be a product', async () => {
    const records = new MemoryKitRecords();
    const scenarios = kitScenarios({ records, now: () => Date.now() });
    const ctx = { principal: 'buyer-1' } as Parameters<NonNullable<(typeof scenarios)['seed_product']>>[1];
    await scenarios['seed_product']!(
      { product_id: 'signals', fixture: { signal_targeting_allowed: true, delivery_type: 'guaranteed' } },
      ctx,
    );
    const stored = await records.get('buyer-1', 'product', 'signals');
    assert.equal(stored?.body.signal_targeting_allowed, true);
    await assert.rejects(
      async () =>
        await scenarios['seed_product']!({ product_id: 'bad', fixture: { publisher_properties: ['all'] } }, ctx),
      refused,
    );
    assert.equal(await records.get('buyer-1', 'product', 'bad'), undefined);
  });
});
