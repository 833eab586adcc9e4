import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultTokenPrincipal, readLivePrincipals, readServeTokens } from './serve-tokens.js';

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

describe('readLivePrincipals', () => {
  const tokens = readServeTokens([`${A}=acme-live`, `${B}=acme`], undefined);

  it('marks principals of the tokens live', () => {
    assert.deepEqual([...readLivePrincipals(['acme-live'], tokens, true)], ['acme-live']);
    assert.equal(readLivePrincipals([], tokens, false).size, 0);
  });

  it('refuses a principal no token has, and the flag without --test-controller', () => {
    assert.throws(() => readLivePrincipals(['acme-lvie'], tokens, true), /--live-principal #1: no --auth-token/);
    assert.throws(() => readLivePrincipals(['acme-live'], tokens, false), /goes with --test-controller/);
  });
});
