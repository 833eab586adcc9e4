import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dataPartData, isDataPart } from './data-part.js';

describe('dataPartData', () => {
  it('finds DataParts by field presence on both wires', () => {
    assert.deepEqual(dataPartData({ data: { a: 1 } }), { a: 1 });
    assert.deepEqual(dataPartData({ kind: 'data', data: { a: 1 }, metadata: {} }), { a: 1 });
  });
  it('refuses null, array and scalar data', () => {
    for (const data of [null, [1], 1, 'x', true]) assert.equal(isDataPart({ data }), false);
  });
  it('treats a Part with a second content field as malformed', () => {
    for (const extra of [{ text: '' }, { raw: 'AA==' }, { url: 'https://x' }, { file: { uri: 'https://x' } }]) {
      assert.equal(isDataPart({ data: { a: 1 }, ...extra }), false, JSON.stringify(extra));
    }
    assert.equal(isDataPart({ data: { a: 1 }, text: null }), true, 'null is an unset field');
  });
});
