import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { extractAdcpResponseFromMcp, taskResultFromMcp } from '../../src/index.js';

// mcp-response-extraction: "Client Library Requirements" (numbered) and "Security Considerations".

const products = { status: 'completed', products: [{ product_id: 'p1' }] };

describe('MCP extraction: client library requirements', () => {
  it('1. checks isError before extraction and returns null for error responses', () => {
    const result = {
      isError: true,
      structuredContent: products,
      content: [{ type: 'text', text: JSON.stringify(products) }],
    };
    assert.equal(extractAdcpResponseFromMcp(result), null);
    assert.equal(extractAdcpResponseFromMcp({ ...result, isError: 1 }), null, 'isError is checked for truthiness');
  });

  it('2. prefers structuredContent and only parses text when it is absent', () => {
    const result = {
      structuredContent: { status: 'completed', source: 'structured' },
      content: [{ type: 'text', text: '{"status":"completed","source":"text"}' }],
    };
    assert.deepEqual(extractAdcpResponseFromMcp(result), { status: 'completed', source: 'structured' });
    assert.deepEqual(extractAdcpResponseFromMcp({ content: result.content }), { status: 'completed', source: 'text' });
  });

  it('3. accepts only non-array objects from JSON.parse (arrays, strings, numbers, booleans, null refused)', () => {
    for (const text of ['[1,2]', '"s"', '42', 'true', 'false', 'null']) {
      assert.equal(extractAdcpResponseFromMcp({ content: [{ type: 'text', text }] }), null, text);
    }
    const later = {
      content: [
        { type: 'text', text: '[{"a":1}]' },
        { type: 'text', text: '{"a":2}' },
      ],
    };
    assert.deepEqual(extractAdcpResponseFromMcp(later), { a: 2 });
  });

  it('4. returns null for adcp_error-only structuredContent (an error missing its isError flag)', () => {
    const result = { structuredContent: { adcp_error: { code: 'BUDGET_TOO_LOW' } }, content: [] };
    assert.equal(extractAdcpResponseFromMcp(result), null);
    assert.equal(taskResultFromMcp(result).status, 'failed', 'the TaskResult reports it as failed');
  });

  it('5. does not require duplicated success data: summary-only text is normal next to structuredContent', () => {
    const result = { structuredContent: products, content: [{ type: 'text', text: 'Found 1 product.' }] };
    assert.deepEqual(extractAdcpResponseFromMcp(result), products);
    assert.equal(taskResultFromMcp(result).status, 'completed');
  });
});

describe('MCP extraction: security considerations', () => {
  it('seller-controlled data: the message of a result is sanitised, the data is returned unchanged', () => {
    const evil = 'ok\r\nFAKE LOG LINE\u001b[31m';
    const result = taskResultFromMcp({ structuredContent: { status: 'completed', message: evil } });
    assert.equal(result.message, 'ok FAKE LOG LINE[31m');
    assert.equal(result.data?.['message'], evil);
  });

  it('size limits: a text item over maxBytes (UTF-8 bytes) is skipped before JSON.parse', () => {
    const text = JSON.stringify({ note: '€'.repeat(400) }); // 411 characters, 1,211 bytes
    assert.equal(extractAdcpResponseFromMcp({ content: [{ type: 'text', text }] }, { maxBytes: 1210 }), null);
    assert.deepEqual(
      extractAdcpResponseFromMcp({ content: [{ type: 'text', text }] }, { maxBytes: 1211 }),
      JSON.parse(text),
    );
    const parse = JSON.parse;
    let parsed = 0;
    JSON.parse = (...args: Parameters<typeof parse>) => {
      parsed++;
      return parse(...args);
    };
    try {
      extractAdcpResponseFromMcp({ content: [{ type: 'text', text }] }, { maxBytes: 500 });
    } finally {
      JSON.parse = parse;
    }
    assert.equal(parsed, 0, 'the oversized item was never parsed');
  });

  it('size limits: the default limit is 4 MiB and a smaller text item after an oversized one is still used', () => {
    const big = `{"pad":"${'x'.repeat(4 * 1024 * 1024)}"}`;
    const result = {
      content: [
        { type: 'text', text: big },
        { type: 'text', text: '{"ok":true}' },
      ],
    };
    assert.deepEqual(extractAdcpResponseFromMcp(result), { ok: true });
  });

  it('prototype pollution: __proto__ and constructor keys stay own data and never reach a prototype', () => {
    const text = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"a":1}';
    const data = extractAdcpResponseFromMcp({ content: [{ type: 'text', text }] });
    assert.ok(data !== null);
    assert.equal(Object.getPrototypeOf(data), Object.prototype);
    assert.deepEqual(Object.keys(data), ['__proto__', 'constructor', 'a']);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    assert.equal((data as Record<string, unknown>)['polluted'], undefined);
  });

  it('type confusion: an isError result carrying success-shaped data is a failed result, never success', () => {
    const result = taskResultFromMcp({
      isError: true,
      structuredContent: products,
      content: [{ type: 'text', text: 'boom' }],
    });
    assert.equal(result.status, 'failed');
    assert.equal(extractAdcpResponseFromMcp({ isError: true, structuredContent: products }), null);
  });
});
