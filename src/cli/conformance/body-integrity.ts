import { describeAdmission, evaluateBodyIntegrity, parseBodyIntegrityCase } from '../../signing/body-integrity.js';
import { expectEqual, guard, vectorId, vectorsWith } from './check.js';
import type { FormatHandler } from './types.js';

/**
 * AdCP 3.2 body-integrity policy cases (`request-signing/body-integrity-policy.json`): verifier
 * facts in, the verifier's decision out. Each case runs through `evaluateBodyIntegrity`, whose
 * decision step (`decideAdmission`) is the one the server's request verifier uses.
 */
export const bodyIntegrityHandler: FormatHandler = {
  format: 'request-signing body-integrity policy',
  matches: (doc) => vectorsWith(doc, 'cases', ['mode', 'endpoint_profile', 'expected']) !== undefined,
  run(doc) {
    const cases = vectorsWith(doc, 'cases', ['mode', 'endpoint_profile', 'expected']) ?? [];
    return Promise.resolve(
      cases.map((entry, index) => {
        const id = vectorId(entry, index);
        return guard(id, () => {
          const facts = parseBodyIntegrityCase(entry);
          if (typeof facts === 'string') return { id, ok: false, reason: facts };
          return expectEqual(id, 'decision', describeAdmission(evaluateBodyIntegrity(facts)), entry.expected);
        });
      }),
    );
  },
};
