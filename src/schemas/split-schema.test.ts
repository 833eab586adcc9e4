import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { splitSchema } from './split-schema.js';

const big = (n: number) => ({ type: 'string', enum: ['x'.repeat(n)] });

describe('splitSchema', () => {
  it('moves large properties (nested too) to definitions behind a $ref and names each part', () => {
    const schema = {
      type: 'object',
      definitions: { keep: { type: 'string' } },
      properties: { small: { type: 'string' }, media_buy: { type: 'object', properties: { inner: big(300) } } },
      required: ['media_buy'],
    };
    const { schema: out, parts } = splitSchema(schema, 100, 200);
    const o = out as Record<string, Record<string, unknown>>;
    assert.deepEqual(o['properties']!['small'], { type: 'string' });
    assert.deepEqual(o['properties']!['media_buy'], { $ref: '#/definitions/adcp_part_media_buy' });
    assert.deepEqual(o['required'], ['media_buy']);
    const defs = o['definitions'] as Record<string, Record<string, Record<string, unknown>>>;
    assert.deepEqual(defs['keep'], { type: 'string' });
    assert.deepEqual(defs['adcp_part_media_buy']!['properties']!['inner'], {
      $ref: '#/definitions/adcp_part_media_buy__inner',
    });
    assert.deepEqual(defs['adcp_part_media_buy__inner'], big(300));
    assert.deepEqual([...parts.values()].sort(), ['media_buy', 'media_buy.inner']);
    assert.equal(parts.get(defs['adcp_part_media_buy__inner']), 'media_buy.inner');
    // The input is not changed.
    assert.equal((schema.properties.media_buy as { $ref?: string }).$ref, undefined);
  });

  it('leaves a small file, a pointer into properties, an $id inside a part and odd names alone', () => {
    const small = { properties: { a: big(10) } };
    assert.equal(splitSchema(small).schema, small);
    const pointed = { properties: { a: big(300), b: { $ref: '#/properties/a' } } };
    assert.equal(splitSchema(pointed, 100, 200).schema, pointed);
    const withId = { properties: { a: { $id: 'x.json', ...big(300) } } };
    assert.equal(splitSchema(withId, 100, 200).parts.size, 0);
    const odd = { properties: { 'a/b': big(300), 'c~d': big(300) } };
    assert.equal(splitSchema(odd, 100, 200).parts.size, 0);
  });
});
