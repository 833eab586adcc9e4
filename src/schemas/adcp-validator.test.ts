import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getValidator } from './adcp-validator.js';
import { AdcpSchemaError } from './schema-error.js';
import { pointerToField } from './validation-result.js';

const v31 = getValidator('3.1');

function deep(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = { nested: value };
  return value;
}

describe('AdcpValidator', () => {
  it('accepts a valid get_products request of 3.0 and 3.1', () => {
    for (const version of ['3.0', '3.1']) {
      const result = getValidator(version).request('get_products', { buying_mode: 'brief', brief: 'Outdoor gear' });
      assert.deepEqual(result, { ok: true, schema: 'media-buy/get-products-request.json' }, version);
    }
  });

  it('names the first problem with a pointer, the keyword and a message', () => {
    const result = v31.request('get_products', { buying_mode: 'retail', brief: 'x' });
    assert.ok(!result.ok);
    assert.deepEqual(
      result.issues.map((i) => [i.pointer, i.keyword]),
      [['/buying_mode', 'enum']],
    );
    assert.match(result.issues[0]!.message, /must be equal to one of the allowed values/);
    const typed = v31.request('get_products', { buying_mode: 'brief', brief: 7 });
    assert.ok(!typed.ok);
    assert.deepEqual(
      typed.issues.map((i) => [i.pointer, i.keyword]),
      [['/brief', 'type']],
    );
  });

  it('points at the missing property itself', () => {
    const result = v31.request('create_media_buy', { idempotency_key: 'k'.repeat(16) });
    assert.ok(!result.ok);
    assert.equal(result.issues[0]?.keyword, 'required');
    assert.match(result.issues[0]?.pointer ?? '', /^\/(account|brand|start_time|end_time)$/);
  });

  // Issue 36.4: validation stops at the first problem, so its cost does not grow with the number of
  // wrong items (Ajv's allErrors copied the error list once per failing $ref item: quadratic).
  it('reports one issue for 24,000 wrong-typed array items', () => {
    const channels = Array.from({ length: 24_000 }, (_, i) => i);
    const result = v31.request('get_products', { buying_mode: 'brief', brief: 'x', filters: { channels } });
    assert.ok(!result.ok);
    assert.deepEqual(result.issues, [{ pointer: '/filters/channels/0', keyword: 'type', message: 'must be string' }]);
  });

  // Issue 36.4: uniqueItems over objects is checked in linear time, with Ajv's meaning and error.
  it('finds duplicate objects in an array (uniqueItems), keys in any order', () => {
    const creative = (ids: unknown[]) => ({
      idempotency_key: 'k'.repeat(16),
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
    const distinct = Array.from({ length: 16_000 }, (_, i) => ({ type: 'ad_id', value: `v${i}` }));
    assert.equal(v31.request('sync_creatives', creative(distinct)).ok, true);
    const duplicated = [
      { type: 'ad_id', value: 'a' },
      { type: 'ad_id', value: 'b' },
      { value: 'a', type: 'ad_id' },
    ];
    const result = v31.request('sync_creatives', creative(duplicated));
    assert.ok(!result.ok);
    assert.deepEqual(result.issues, [
      {
        pointer: '/creatives/0/industry_identifiers',
        keyword: 'uniqueItems',
        message: 'must NOT have duplicate items (items ## 0 and 2 are identical)',
      },
    ]);
  });

  it('skips a tool the release does not define', () => {
    assert.deepEqual(v31.request('my_custom_tool', { anything: 1 }), { ok: true, skipped: 'unknown_tool' });
  });

  it('uses the status-specific schema for async results', () => {
    const working = v31.result('create_media_buy', 'working', { percentage: 50 });
    assert.equal(working.schema, 'media-buy/create-media-buy-async-response-working.json');
    assert.equal(working.ok, true);
    const bad = v31.result('create_media_buy', 'working', { percentage: 'half' });
    assert.equal(bad.ok, false);
    assert.equal(v31.result('create_media_buy', 'completed', {}).schema, 'media-buy/create-media-buy-response.json');
    assert.deepEqual(v31.result('get_products', 'canceled', {}), { ok: true, skipped: 'no_schema' });
  });

  it('answers a 10,000-deep value with an issue instead of a stack overflow', () => {
    const result = v31.request('get_products', { buying_mode: 'brief', brief: 'x', ext: deep(10_000) });
    assert.ok(!result.ok);
    assert.equal(result.issues[0]?.keyword, 'maxDepth');
  });

  it('answers a huge value with an issue, without walking all of it', () => {
    const products = Array.from({ length: 300_000 }, () => 1);
    const result = v31.request('get_products', { buying_mode: 'brief', brief: 'x', ext: { products } });
    assert.ok(!result.ok);
    assert.equal(result.issues[0]?.keyword, 'maxNodes');
  });

  it('never throws on values that are not JSON', () => {
    const result = v31.request('get_products', { buying_mode: 'brief', brief: 'x', ext: { f: () => 1 } });
    assert.ok(!result.ok);
    assert.equal(v31.request('get_products', null).ok, false);
    assert.equal(v31.request('get_products', 'text').ok, false);
  });

  it('sanitises hostile property names in pointers', () => {
    const result = v31.request('create_media_buy', {
      idempotency_key: 'k'.repeat(20),
      packages: [{ ['evil\r\nSet-Cookie: x\u202e']: 1 }],
    });
    assert.ok(!result.ok);
    for (const issue of result.issues) assert.doesNotMatch(issue.pointer + issue.message, /[\r\n\u202e]/);
  });

  it('refuses a schema tree whose $ref leaves the release, without fetching it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'adcp-schemas-'));
    try {
      const root = join(dir, '3.1.0');
      mkdirSync(join(root, 'media-buy'), { recursive: true });
      writeFileSync(join(root, 'index.json'), JSON.stringify({ $id: '/schemas/3.1.0/index.json' }));
      const tool = {
        protocol: 'media-buy',
        mutating: false,
        request_schema: 'media-buy/x-request.json',
        response_schema: 'media-buy/x-response.json',
        async_response_schemas: [],
      };
      writeFileSync(join(root, 'manifest.json'), JSON.stringify({ tools: { x: tool } }));
      writeFileSync(
        join(root, 'media-buy', 'x-request.json'),
        JSON.stringify({ $id: '/schemas/3.1.0/media-buy/x-request.json', $ref: 'https://example.com/evil.json' }),
      );
      writeFileSync(
        join(root, 'media-buy', 'x-response.json'),
        JSON.stringify({ $id: '/schemas/3.1.0/media-buy/x-response.json', $ref: '/schemas/3.1.0/core/missing.json' }),
      );
      const validator = getValidator('3.1.0', { dirs: [dir] });
      assert.throws(
        () => validator.request('x', {}),
        (e: unknown) => e instanceof AdcpSchemaError && e.code === 'unresolvable_ref',
      );
      assert.throws(
        () => validator.response('x', {}),
        (e: unknown) => e instanceof AdcpSchemaError && e.code === 'unresolvable_ref',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('pointerToField', () => {
  it('turns an RFC 6901 pointer into JSONPath-lite (error.json, field)', () => {
    assert.equal(pointerToField('/packages/0/targeting'), 'packages[0].targeting');
    assert.equal(pointerToField('/a~1b/c~0d'), 'a/b.c~d');
    assert.equal(pointerToField(''), '');
  });
});
