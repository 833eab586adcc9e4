import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sanitizeSellerText } from '../../src/core/sanitize.js';
import { isRedirectParam, validateSellerUrl } from '../../src/core/url-hygiene.js';
import { sanitizeKeyNameForLog } from '../../src/core/log-key-names.js';

const RUNS = 10_000;
const FORBIDDEN =
  // oxlint-disable-next-line no-control-regex -- the property is that no control character survives
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;
const nasty = fc.constantFrom(
  '\r',
  '\n',
  '\u001b',
  '\u0085',
  '\u202e',
  '\u2066',
  '\u200b',
  '\ufeff',
  '\u2028',
  '\ud800',
  '😀',
  'é',
  ' ',
);
const sellerText = fc
  .array(fc.oneof(fc.string({ maxLength: 8 }), nasty), { maxLength: 40 })
  .map((parts) => parts.join(''));

describe('sanitizeSellerText (property)', () => {
  it('never leaves a control, bidi or zero-width character and never exceeds maxLength code points', () => {
    fc.assert(
      fc.property(sellerText, fc.integer({ min: 1, max: 50 }), (text, maxLength) => {
        const out = sanitizeSellerText(text, { maxLength }) ?? assert.fail('string in, string out');
        assert.equal(FORBIDDEN.test(out), false);
        assert.ok(Array.from(out).length <= maxLength);
        assert.equal(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(out), false);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('sanitizeKeyNameForLog (property)', () => {
  it('returns a marker or at most 32 UTF-8 bytes of printable text', () => {
    fc.assert(
      fc.property(sellerText, (name) => {
        const out = sanitizeKeyNameForLog(name);
        if (/^<sanitized:\d+>$/.test(out)) return;
        assert.equal(FORBIDDEN.test(out), false);
        assert.ok(Buffer.byteLength(out) <= 32);
        assert.ok(name.startsWith(out));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('validateSellerUrl (property)', () => {
  const allow = { allowedHosts: ['seller.example.com'] };
  const urlish = fc.oneof(
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc.webUrl().map((u) => u.replace(/^https?:\/\/[^/]+/, 'https://seller.example.com')),
    fc
      .tuple(
        fc.constantFrom(
          'https://seller.example.com/a?',
          'https://SELLER.example.com./b?',
          'https://u@seller.example.com/?',
        ),
        fc.array(
          fc.tuple(
            fc.constantFrom('redirect_uri', 'Next', 'scope', 'RETURN_TO', 'x', 'callbackUrl'),
            fc.string({ maxLength: 5 }),
          ),
          { maxLength: 4 },
        ),
      )
      .map(([base, params]) => base + params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')),
    fc.string({ maxLength: 40 }),
  );
  it('never throws, and an accepted URL is https on the allowed host without userinfo or redirect parameters', () => {
    fc.assert(
      fc.property(urlish, (url) => {
        const r = validateSellerUrl(url, allow);
        if (!r.ok) return;
        const u = new URL(r.url);
        assert.equal(u.protocol, 'https:');
        assert.equal(u.hostname.replace(/\.$/, ''), 'seller.example.com');
        assert.equal(u.username + u.password, '');
        assert.equal(u.hash, '');
        for (const name of u.searchParams.keys()) assert.equal(isRedirectParam(name), false, name);
      }),
      { numRuns: RUNS },
    );
  });
});
