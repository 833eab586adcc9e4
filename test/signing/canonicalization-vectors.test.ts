import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalizeTargetUri } from '../../src/signing/canonicalize-target-uri.js';
import { readVector } from '../webhooks/vectors.js';

interface Case {
  name: string;
  rule: string;
  input_url: string;
  reject?: boolean;
  expected_target_uri?: string;
  expected_authority?: string;
}
const { cases } = readVector<{ cases: Case[] }>('request-signing', 'canonicalization.json');

describe('canonicalizeTargetUri: request-signing/canonicalization.json', () => {
  for (const c of cases) {
    it(`${c.name}: ${c.reject === true ? 'rejects' : 'canonicalizes'} (${c.rule})`, () => {
      const result = canonicalizeTargetUri(c.input_url);
      if (c.reject === true) assert.equal(result.ok, false);
      else {
        assert.equal(result.ok, true);
        if (result.ok) {
          assert.equal(result.targetUri, c.expected_target_uri);
          assert.equal(result.authority, c.expected_authority);
        }
      }
    });
  }
});
