import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { contentDigestMatches } from './content-digest.js';

const body = '{"jsonrpc":"2.0","id":1}';
const sha256 = createHash('sha256').update(body).digest();
const sha512 = createHash('sha512').update(body).digest();
const b64 = sha256.toString('base64');
const b64url = sha256.toString('base64url');
// The same bytes with the unused low bits of the last character set: decodes equal, spelled otherwise.
const looseB64url = b64url.slice(0, -1) + String.fromCharCode(b64url.charCodeAt(b64url.length - 1) + 1);

describe('contentDigestMatches', () => {
  it('accepts the digest in padded Base64, and in unpadded Base64URL unless only sf-binary is allowed', () => {
    assert.equal(contentDigestMatches(`sha-256=:${b64}:`, body), true);
    assert.equal(contentDigestMatches(`sha-256=:${b64}:`, body, 'base64'), true);
    assert.equal(contentDigestMatches(`sha-256=:${b64url}:`, body), true);
    assert.equal(contentDigestMatches(`sha-256=:${b64url}:`, body, 'base64'), false);
  });

  it('decodes other spellings of the same bytes strictly, as before', () => {
    assert.notEqual(looseB64url, b64url);
    assert.deepEqual(Buffer.from(looseB64url, 'base64url'), sha256);
    assert.equal(contentDigestMatches(`sha-256=:${looseB64url}:`, body), true);
    assert.equal(contentDigestMatches(`sha-256=:${b64url}=:`, body), false, 'padded Base64URL');
    assert.equal(contentDigestMatches(`sha-256=:${b64url.slice(0, -2)}-=:`, body), false, 'mixed alphabets');
  });

  it('refuses a wrong digest, checks every supported algorithm, ignores unknown ones', () => {
    assert.equal(contentDigestMatches(`sha-256=:${b64}:`, `${body} `), false);
    assert.equal(contentDigestMatches(`sha-256=:${b64}:, sha-512=:${sha512.toString('base64')}:`, body), true);
    assert.equal(contentDigestMatches(`sha-256=:${b64}:, sha-512=:${b64}:`, body), false);
    assert.equal(contentDigestMatches(`md5=:AAAA:, sha-256=:${b64}:`, body), true);
    assert.equal(contentDigestMatches('md5=:AAAA:', body), false);
    assert.equal(contentDigestMatches('sha-256="x"', body), false);
  });
});
