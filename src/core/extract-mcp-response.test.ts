import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { extractAdcpResponseFromMcp } from './extract-mcp-response.js';

const text = (...texts: unknown[]) => ({ content: texts.map((t) => ({ type: 'text', text: t })) });

describe('extractAdcpResponseFromMcp', () => {
  it('parses JSON text with leading JSON whitespace', () => {
    assert.deepEqual(extractAdcpResponseFromMcp(text(' \n\t{"a":1}')), { a: 1 });
  });
  it('skips items that are not text, empty, not strings, or adcp_error-only, in array order', () => {
    const result = {
      content: [
        { type: 'image', data: '{"a":0}' },
        { type: 'text', text: '' },
        { type: 'text', text: { a: 1 } },
        { type: 'text', text: '{"adcp_error":{"code":"X"}}' },
        { type: 'text', text: '{"a":2}' },
        { type: 'text', text: '{"a":3}' },
      ],
    };
    assert.deepEqual(extractAdcpResponseFromMcp(result), { a: 2 });
  });
  it('treats a non-object structuredContent as absent', () => {
    assert.deepEqual(extractAdcpResponseFromMcp({ structuredContent: [1], ...text('{"a":1}') }), { a: 1 });
    assert.deepEqual(extractAdcpResponseFromMcp({ structuredContent: null, ...text('{"a":1}') }), { a: 1 });
  });
  it('returns the structuredContent object itself, without copying', () => {
    const sc = { status: 'completed' };
    assert.equal(extractAdcpResponseFromMcp({ structuredContent: sc }), sc);
  });
  it('returns null for inputs that are not objects', () => {
    for (const v of [null, undefined, 'x', 1, [], [{ structuredContent: {} }]])
      assert.equal(extractAdcpResponseFromMcp(v), null);
  });
  it('counts the limit in UTF-8 bytes, not characters', () => {
    const json = `{"s":"${'é'.repeat(10)}"}`; // 18 characters, 28 bytes
    assert.equal(extractAdcpResponseFromMcp(text(json), { maxBytes: 27 }), null);
    assert.deepEqual(extractAdcpResponseFromMcp(text(json), { maxBytes: 28 }), { s: 'é'.repeat(10) });
  });
  it('refuses a negative or NaN maxBytes with a RangeError', () => {
    assert.throws(() => extractAdcpResponseFromMcp({}, { maxBytes: -1 }), RangeError);
    assert.throws(() => extractAdcpResponseFromMcp({}, { maxBytes: Number.NaN }), RangeError);
  });
});
