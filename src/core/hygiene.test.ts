import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sanitizeSellerText } from './sanitize.js';
import { checkFilePartRaw, isRedirectParam, validateSellerUrl } from './url-hygiene.js';

describe('sanitizeSellerText', () => {
  it('turns CR/LF into spaces so a log line cannot be forged', () => {
    assert.equal(sanitizeSellerText('ok\r\nFAKE LOG LINE'), 'ok FAKE LOG LINE');
  });
  it('removes C0, DEL and C1 controls, including ESC sequences', () => {
    assert.equal(sanitizeSellerText('a\u0000b\u001b[31mc\u007fd\u0085e\u009bf'), 'ab[31mcd ef');
  });
  it('removes bidi overrides, isolates, zero-width characters and the BOM', () => {
    assert.equal(sanitizeSellerText('\u202eevil\u202c\u2066x\u2069\u200by\u200f\ufeffz'), 'evilxyz');
  });
  it('turns line and paragraph separators into spaces', () => {
    assert.equal(sanitizeSellerText('a\u2028b\u2029c'), 'a b c');
  });
  it('removes lone surrogates but keeps astral characters', () => {
    assert.equal(sanitizeSellerText('a\ud800b😀'), 'ab😀');
  });
  it('caps the length with an ellipsis, counting code points', () => {
    assert.equal(sanitizeSellerText('abcdef', { maxLength: 4 }), 'abc…');
    assert.equal(sanitizeSellerText('😀😀😀😀😀', { maxLength: 3 }), '😀😀…');
    assert.equal(sanitizeSellerText('abcd', { maxLength: 4 }), 'abcd');
  });
  it('caps a huge input at the default 256 characters', () => {
    const out = sanitizeSellerText('x'.repeat(1_000_000));
    assert.equal(out?.length, 256);
    assert.equal(out?.endsWith('…'), true);
  });
  it('returns undefined for non-strings', () => {
    for (const v of [null, undefined, 1, {}, ['a']]) assert.equal(sanitizeSellerText(v), undefined);
  });
  it('refuses a nonsensical maxLength with a RangeError', () => {
    assert.throws(() => sanitizeSellerText('a', { maxLength: 0 }), RangeError);
  });
});

describe('validateSellerUrl', () => {
  const allow = { allowedHosts: ['seller.example.com'] };
  it('accepts an https URL on an allowed host and returns it normalised', () => {
    assert.deepEqual(validateSellerUrl('https://Seller.Example.com/auth?scope=a', allow), {
      ok: true,
      url: 'https://seller.example.com/auth?scope=a',
      dropped: [],
    });
  });
  it('rejects http, javascript, data and file URLs', () => {
    for (const u of ['http://seller.example.com/', 'javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd']) {
      assert.deepEqual(validateSellerUrl(u, allow), { ok: false, reason: 'not_https' }, u);
    }
  });
  it('rejects userinfo, even empty', () => {
    assert.deepEqual(validateSellerUrl('https://user:pass@seller.example.com/', allow), {
      ok: false,
      reason: 'userinfo',
    });
    assert.deepEqual(validateSellerUrl('https://@seller.example.com/', allow), { ok: false, reason: 'userinfo' });
  });
  it('rejects hosts not in the allow-list, including look-alike suffixes', () => {
    for (const u of [
      'https://evil.example/',
      'https://seller.example.com.evil.example/',
      'https://xseller.example.com/',
    ]) {
      assert.deepEqual(validateSellerUrl(u, allow), { ok: false, reason: 'host_not_allowed' }, u);
    }
  });
  it('treats one trailing dot as the same host', () => {
    assert.equal(validateSellerUrl('https://seller.example.com./x', allow).ok, true);
  });
  it('compares IDN hosts after punycode conversion', () => {
    assert.equal(validateSellerUrl('https://bücher.example/x', { allowedHosts: ['xn--bcher-kva.example'] }).ok, true);
    assert.equal(validateSellerUrl('https://xn--bcher-kva.example/x', { allowedHosts: ['BÜCHER.example'] }).ok, true);
  });
  it('rejects a non-default port unless the allow-list names it', () => {
    assert.deepEqual(validateSellerUrl('https://seller.example.com:8443/', allow), {
      ok: false,
      reason: 'host_not_allowed',
    });
    assert.equal(
      validateSellerUrl('https://seller.example.com:8443/', { allowedHosts: ['seller.example.com:8443'] }).ok,
      true,
    );
    assert.equal(validateSellerUrl('https://seller.example.com:443/', allow).ok, true);
  });
  it('matches allowed origins exactly', () => {
    const origins = { allowedOrigins: ['https://auth.example.com'] };
    assert.equal(validateSellerUrl('https://auth.example.com/login', origins).ok, true);
    assert.equal(validateSellerUrl('https://other.example.com/login', origins).ok, false);
    assert.equal(
      validateSellerUrl('https://auth.example.com/', { allowedOrigins: ['http://auth.example.com'] }).ok,
      false,
    );
  });
  it('drops redirect-style query parameters in any case, and the fragment', () => {
    const r = validateSellerUrl(
      'https://seller.example.com/auth?client=1&redirect_uri=https://evil/&Return_URL=x&NEXT=y&continue=z&callback=c&returnTo=r#frag',
      allow,
    );
    assert.deepEqual(r, {
      ok: true,
      url: 'https://seller.example.com/auth?client=1',
      dropped: ['redirect_uri', 'Return_URL', 'NEXT', 'continue', 'callback', 'returnTo'],
    });
  });
  it('rejects control characters, spaces and backslashes instead of letting the parser fix them', () => {
    for (const u of [
      'https://seller.example.com/\nx',
      'https://seller.example.com\\@evil.example/',
      ' https://seller.example.com/',
    ]) {
      assert.deepEqual(validateSellerUrl(u, allow), { ok: false, reason: 'invalid_url' }, JSON.stringify(u));
    }
  });
  it('rejects non-strings, garbage and overlong URLs', () => {
    assert.deepEqual(validateSellerUrl(42, allow), { ok: false, reason: 'not_a_string' });
    assert.deepEqual(validateSellerUrl('https://', allow), { ok: false, reason: 'invalid_url' });
    assert.deepEqual(validateSellerUrl(`https://seller.example.com/${'a'.repeat(3000)}`, allow), {
      ok: false,
      reason: 'too_long',
    });
  });
  it('throws a TypeError when the caller gives no allow-list', () => {
    assert.throws(() => validateSellerUrl('https://a.example/', {}), TypeError);
  });
  it('recognises redirect parameter names', () => {
    assert.equal(isRedirectParam('redirect_uri'), true);
    assert.equal(isRedirectParam('post-logout-redirect'), true);
    assert.equal(isRedirectParam('scope'), false);
  });
});

describe('checkFilePartRaw', () => {
  it('computes the decoded size without decoding', () => {
    assert.deepEqual(checkFilePartRaw('aGVsbG8=', 10), { ok: true, bytes: 5 });
    assert.deepEqual(checkFilePartRaw('aGVsbG8', 10), { ok: true, bytes: 5 });
    assert.deepEqual(checkFilePartRaw('', 0), { ok: true, bytes: 0 });
  });
  it('rejects raw data decoding to more than maxBytes', () => {
    assert.deepEqual(checkFilePartRaw('aGVsbG8=', 4), { ok: false, reason: 'too_large' });
    assert.deepEqual(checkFilePartRaw('A'.repeat(10_000_000), 1024), { ok: false, reason: 'too_large' });
  });
  it('rejects characters outside base64 and base64url', () => {
    assert.deepEqual(checkFilePartRaw('aGV sbG8=', 100), { ok: false, reason: 'invalid_base64' });
    assert.deepEqual(checkFilePartRaw('a', 100), { ok: false, reason: 'invalid_base64' });
  });
});
