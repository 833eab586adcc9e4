import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createStaticTokens } from './static-tokens.js';

const TOKEN = 'sk_test_0123456789abcdef';

describe('createStaticTokens', () => {
  it('maps each token to its principal and nothing else', () => {
    const tokens = createStaticTokens({ [TOKEN]: 'alice', [`${TOKEN}x`]: 'bob' });
    assert.equal(tokens.principalOf(TOKEN), 'alice');
    assert.equal(tokens.principalOf(`${TOKEN}x`), 'bob');
    assert.equal(tokens.principalOf(TOKEN.slice(0, -1)), undefined);
    assert.equal(tokens.principalOf(''), undefined);
    assert.equal(tokens.size, 2);
  });

  it('accepts a Map', () => {
    assert.equal(createStaticTokens(new Map([[TOKEN, 'alice']])).principalOf(TOKEN), 'alice');
  });

  it('refuses short tokens, bad characters and anonymous principals, naming the entry but never the token', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ 'short-secret': 'alice' }, /entry 1: a token must be at least 16 characters/],
      [{ 'has space 0123456789': 'alice' }, /entry 1: a token must be an RFC 6750 bearer token/],
      [{ [TOKEN]: 'anonymous@127.0.0.1' }, /a principal must not start with 'anonymous@'/],
      [{ [TOKEN]: '' }, /a principal must be a non-empty string/],
      [{ [TOKEN]: 'ali\nce' }, /control characters/],
    ];
    for (const [tokens, message] of cases) {
      assert.throws(
        () => createStaticTokens(tokens),
        (error: Error) => {
          assert.ok(error instanceof TypeError);
          assert.match(error.message, message);
          for (const token of Object.keys(tokens)) assert.ok(!error.message.includes(token));
          return true;
        },
      );
    }
  });
});
