// a2a-response-extraction.md, "Security Considerations": FilePart URI validation, auth challenge
// URL validation and seller-controlled string hygiene, one test per point.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkFilePart } from '../../src/core/file-part.js';
import { sanitizeSellerText } from '../../src/core/sanitize.js';
import { validateSellerUrl } from '../../src/core/url-hygiene.js';

const allow = { allowedHosts: ['cdn.seller.example'] };

describe('FilePart URI validation', () => {
  it('accepts an https URL on an allowed host, 1.0 and v0.3 shapes', () => {
    assert.deepEqual(checkFilePart({ url: 'https://cdn.seller.example/a.png', mediaType: 'image/png' }, allow), {
      ok: true,
      kind: 'url',
      url: 'https://cdn.seller.example/a.png',
      mediaType: 'image/png',
    });
    const legacy = checkFilePart(
      { kind: 'file', file: { uri: 'https://cdn.seller.example/b.pdf', mimeType: 'application/pdf' } },
      allow,
    );
    assert.equal(legacy.ok && legacy.kind === 'url' && legacy.url, 'https://cdn.seller.example/b.pdf');
  });
  it('rejects javascript:, data:, file: and http: URIs', () => {
    for (const url of [
      'javascript:alert(1)',
      'data:text/html,<b>x</b>',
      'file:///etc/passwd',
      'http://cdn.seller.example/a.png',
    ]) {
      assert.deepEqual(checkFilePart({ url }, allow), { ok: false, reason: 'not_https' }, url);
    }
  });
  it('rejects a userinfo component', () => {
    assert.deepEqual(checkFilePart({ url: 'https://a:b@cdn.seller.example/x' }, allow), {
      ok: false,
      reason: 'userinfo',
    });
  });
  it('rejects a domain outside the allow-list', () => {
    assert.deepEqual(checkFilePart({ url: 'https://cdn.evil.example/x' }, allow), {
      ok: false,
      reason: 'host_not_allowed',
    });
  });
  it('enforces a maximum decoded size on raw parts before accepting them', () => {
    const raw = Buffer.alloc(2000).toString('base64');
    assert.deepEqual(checkFilePart({ raw }, { ...allow, maxRawBytes: 1000 }), { ok: false, reason: 'too_large' });
    const ok = checkFilePart({ raw, mediaType: 'application/octet-stream' }, { ...allow, maxRawBytes: 2000 });
    assert.equal(ok.ok && ok.kind === 'raw' && ok.bytes, 2000);
    assert.deepEqual(checkFilePart({ kind: 'file', file: { bytes: 'not base64!' } }, allow), {
      ok: false,
      reason: 'invalid_base64',
    });
  });
  it('refuses a part that sets both a URL and bytes (A2A oneof)', () => {
    assert.deepEqual(checkFilePart({ url: 'https://cdn.seller.example/x', raw: 'AAAA' }, allow), {
      ok: false,
      reason: 'ambiguous_part',
    });
  });
});

describe('Auth challenge URL validation', () => {
  const auth = { allowedOrigins: ['https://auth.seller.example'] };
  it('requires https', () => {
    for (const u of ['http://auth.seller.example/authorize', 'javascript:x', 'data:,x', 'file:///x']) {
      assert.equal(validateSellerUrl(u, auth).ok, false, u);
    }
  });
  it('refuses a userinfo component', () => {
    assert.deepEqual(validateSellerUrl('https://user:pass@auth.seller.example/authorize', auth), {
      ok: false,
      reason: 'userinfo',
    });
  });
  it('requires the host of the registered auth origin', () => {
    assert.deepEqual(validateSellerUrl('https://auth.phish.example/authorize', auth), {
      ok: false,
      reason: 'host_not_allowed',
    });
  });
  it('drops redirect_uri, return_url and similar parameters before navigation', () => {
    const r = validateSellerUrl(
      'https://auth.seller.example/authorize?scope=read&redirect_uri=https%3A%2F%2Fevil.example&return_url=x',
      auth,
    );
    assert.deepEqual(r, {
      ok: true,
      url: 'https://auth.seller.example/authorize?scope=read',
      dropped: ['redirect_uri', 'return_url'],
    });
  });
});

describe('Seller-controlled string hygiene', () => {
  it('strips CRLF from seller text before logging', () => {
    assert.equal(
      sanitizeSellerText('Rate limited\r\n2026-01-01 INFO admin logged in'),
      'Rate limited 2026-01-01 INFO admin logged in',
    );
  });
});
