import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { checkRequestSignature, verifyRequestSignature } from './verify-request-signature.js';
import { signRequest } from './sign-request.js';
import { MemoryReplayStore, type ReplayStore } from './replay-store.js';
import type { Jwk } from './jwks.js';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const jwk: Jwk = {
  ...(publicKey.export({ format: 'jwk' }) as Jwk),
  kid: 'k1',
  use: 'sig',
  key_ops: ['verify'],
  adcp_use: 'request-signing',
};
const url = 'https://seller.example/mcp';
const body = '{"jsonrpc":"2.0","id":1,"method":"tools/call"}';
const signed = () => ({
  method: 'POST',
  url,
  body,
  headers: {
    'content-type': 'application/json',
    ...signRequest({ method: 'POST', url, body }, { keyid: 'k1', privateKey }),
  },
});

describe('checkRequestSignature', () => {
  it('answers at once with in-memory stores and the check on the event loop', () => {
    const replay = new MemoryReplayStore();
    const request = signed();
    const options = { jwks: [jwk], replay, offThread: () => false };
    const first = checkRequestSignature(request, options);
    assert.ok(!(first instanceof Promise));
    assert.equal(first.ok && first.signed && first.keyid, 'k1');
    const again = checkRequestSignature(request, options);
    assert.deepEqual(again, { ok: false, code: 'request_signature_replayed' });
  });

  it('answers with a promise, in the same order, when a store answers later', async () => {
    const memory = new MemoryReplayStore();
    const calls: string[] = [];
    const replay: ReplayStore = {
      isAtCapacity: (keyid, now) => (calls.push('capacity'), Promise.resolve(memory.isAtCapacity(keyid, now))),
      record: (...args) => (calls.push('record'), Promise.resolve(memory.record(...args))),
    };
    const result = checkRequestSignature(signed(), { jwks: [jwk], replay, offThread: () => false });
    assert.ok(result instanceof Promise);
    const answer = await result;
    assert.equal(answer.ok && answer.signed && answer.keyid, 'k1');
    assert.deepEqual(calls, ['capacity', 'record']);
  });

  it('stays a promise behind verifyRequestSignature, on or off the event loop', async () => {
    for (const offThread of [() => false, () => true]) {
      const pending = verifyRequestSignature(signed(), { jwks: [jwk], replay: new MemoryReplayStore(), offThread });
      assert.ok(pending instanceof Promise);
      const answer = await pending;
      assert.equal(answer.ok && answer.signed, true);
    }
  });
});
