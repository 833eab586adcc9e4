import { expectEqual, guard, vectorId, vectorsWith } from './check.js';
import { requireWebhooks } from './load-webhooks.js';
import type { FormatHandler } from './types.js';

/**
 * RFC 9421 `@target-uri` canonicalization cases: `cases[]` of `input_url` with either
 * `expected_target_uri` (and `expected_authority`) or `reject: true`.
 */
export const urlCanonicalizationHandler: FormatHandler = {
  format: '@target-uri canonicalization',
  matches: (doc) => vectorsWith(doc, 'cases', ['input_url']) !== undefined,
  async run(doc) {
    const { canonicalizeTargetUri } = await requireWebhooks('canonicalizeTargetUri');
    return (vectorsWith(doc, 'cases', ['input_url']) ?? []).map((c, i) => {
      const id = vectorId(c, i);
      return guard(id, () => {
        const out = canonicalizeTargetUri(String(c['input_url']));
        if (c['reject'] === true) return expectEqual(id, 'outcome', out.ok ? out.targetUri : 'rejected', 'rejected');
        if (!out.ok) return expectEqual(id, '@target-uri', `rejected (${out.reason})`, c['expected_target_uri']);
        const actual = { target_uri: out.targetUri, authority: out.authority };
        const expected = { target_uri: c['expected_target_uri'], authority: c['expected_authority'] ?? out.authority };
        return expectEqual(id, '@target-uri/@authority', actual, expected);
      });
    });
  },
};
