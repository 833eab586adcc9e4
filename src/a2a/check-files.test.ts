import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkAuthChallenge, filePartsOf } from './check-files.js';
import { AdcpWireError } from '../core/wire-error.js';

const ORIGINS = ['https://seller.example'];

describe('checkAuthChallenge', () => {
  it('accepts a challenge_url on the card origin and drops redirect parameters', () => {
    assert.equal(
      checkAuthChallenge('https://seller.example/oauth?scope=buy&redirect_uri=https://evil.example/', ORIGINS),
      'https://seller.example/oauth?scope=buy',
    );
  });

  for (const url of [
    'https://evil.example/oauth',
    'http://seller.example/oauth',
    'https://user@seller.example/oauth',
    'javascript:alert(1)',
    42,
  ]) {
    it(`refuses ${String(url)}`, () => {
      assert.throws(
        () => checkAuthChallenge(url, ORIGINS),
        (e: unknown) => e instanceof AdcpWireError && e.code === 'unsafe_url',
      );
    });
  }
});

describe('filePartsOf', () => {
  it('checks 1.0 and v0.3 FileParts of artifacts[0] and the status message', () => {
    const task = {
      status: {
        state: 'completed',
        message: {
          parts: [
            {
              kind: 'file',
              file: {
                uri: 'https://seller.example/a.png?next=https://x.example',
                name: 'a.png',
                mimeType: 'image/png',
              },
            },
          ],
        },
      },
      artifacts: [
        {
          parts: [
            { data: {} },
            { url: 'https://cdn.evil.example/b.mp4' },
            { url: 'https://seller.example/c', raw: 'AAAA' },
            { raw: '!!!!' },
          ],
        },
        { parts: [{ url: 'https://seller.example/ignored-second-artifact' }] },
      ],
    };
    assert.deepEqual(filePartsOf(task, ORIGINS), [
      { refused: 'host_not_allowed' },
      { refused: 'ambiguous_part' },
      { refused: 'invalid_base64' },
      { url: 'https://seller.example/a.png', filename: 'a.png', mediaType: 'image/png' },
    ]);
  });

  it('refuses raw bytes over the size limit', () => {
    const raw = 'A'.repeat(2 * 1024 * 1024);
    assert.deepEqual(filePartsOf({ artifacts: [{ parts: [{ raw }] }] }, ORIGINS), [{ refused: 'too_large' }]);
  });
});
