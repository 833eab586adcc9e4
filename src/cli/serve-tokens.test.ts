import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultTokenPrincipal, readServeTokens } from './serve-tokens.js';

const A = 'aaaaaaaaaaaaaaaa1';
const B = 'bbbbbbbbbbbbbbbb2';

describe('readServeTokens', () => {
  it('reads T and T=principal from flags and the comma-separated environment', () => {
    const tokens = readServeTokens([`${A}=alice`], ` ${B} ,`);
    assert.deepEqual(
      [...tokens],
      [
        [A, 'alice'],
        [B, defaultTokenPrincipal(B)],
      ],
    );
  });

  it('gives a bare token a stable principal that is not the token', () => {
    assert.equal(defaultTokenPrincipal(A), defaultTokenPrincipal(A));
    assert.match(defaultTokenPrincipal(A), /^token:[0-9a-f]{8}$/);
    assert.notEqual(defaultTokenPrincipal(A), defaultTokenPrincipal(B));
  });

  it('refuses one token for two principals and an empty principal, without echoing the token', () => {
    assert.throws(
      () => readServeTokens([`${A}=alice`, `${A}=bob`], undefined),
      /--auth-token #2: this token is already given/,
    );
    assert.throws(
      () => readServeTokens([], `${A}=`),
      /ADCP_SERVE_TOKENS entry 1: a principal must be a non-empty string/,
    );
    assert.throws(
      () => readServeTokens(['tiny'], undefined),
      (error: Error) => !error.message.includes('tiny') && /at least 16 characters/.test(error.message),
    );
  });
});
