import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildSignatureBase } from './signature-base.js';
import { parseDictionary, type InnerList } from './structured-fields.js';

const params = parseDictionary('sig1=("@method" "@authority" "content-type");created=1;keyid="k"')?.get(
  'sig1',
) as InnerList;
const base = (url: string, host: string | undefined) =>
  buildSignatureBase(
    {
      method: 'post',
      url,
      headers:
        host === undefined ? { 'content-type': ' application/json ' } : { host, 'content-type': 'application/json' },
    },
    params,
  );

describe('buildSignatureBase', () => {
  it('builds one line per component and the signature params last, from the header text', () => {
    assert.deepEqual(base('https://Seller.Example:443/mcp', undefined), {
      ok: true,
      base:
        '"@method": POST\n"@authority": seller.example\n"content-type": application/json\n' +
        '"@signature-params": ("@method" "@authority" "content-type");created=1;keyid="k"',
    });
  });

  it('checks each Host header against the URL authority, whatever host came before', () => {
    for (const [url, host, ok] of [
      ['https://seller.example/mcp', 'seller.example', true],
      ['https://seller.example/mcp', 'seller.example', true],
      ['https://seller.example/mcp', 'other.example', false],
      ['https://other.example/mcp', 'other.example', true],
      ['http://seller.example/mcp', 'seller.example:443', false],
      ['https://seller.example/mcp', 'seller.example:443', true],
      ['https://seller.example/mcp', 'SELLER.example.', true],
      ['https://seller.example/mcp', '[::1', false],
      ['https://seller.example/mcp', '[::1', false],
    ] as const) {
      const result = base(url, host);
      assert.equal(result.ok, ok, `${url} with Host ${host}`);
      if (!result.ok) assert.equal(result.reason, 'target_uri_malformed');
    }
  });
});
