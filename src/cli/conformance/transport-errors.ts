import { isJsonObject } from '../../core/json-object.js';
import {
  extractAdcpError,
  extractAdcpErrorFromA2A,
  extractAdcpErrorFromJsonRpc,
  extractAdcpErrorFromMcp,
} from '../../core/extract-error.js';
import { recoveryAction } from '../../core/recovery.js';
import { all, expectEqual, guard, vectorId, vectorsWith } from './check.js';
import type { FormatHandler } from './types.js';

/** transport-errors.md "Test Vectors": `response`, `expected_error`, `expected_action` (`transport` optional). */
export const transportErrorsHandler: FormatHandler = {
  format: 'transport errors',
  matches: (doc) => vectorsWith(doc, 'vectors', ['response', 'expected_error', 'expected_action']) !== undefined,
  async run(doc) {
    const vectors = vectorsWith(doc, 'vectors', ['response', 'expected_error', 'expected_action']) ?? [];
    return vectors.map((v, i) => {
      const id = vectorId(v, i);
      return guard(id, () => {
        const response = v['response'];
        const error =
          v['transport'] === 'a2a'
            ? extractAdcpErrorFromA2A(response)
            : v['transport'] === 'mcp'
              ? isJsonObject(response) && 'error' in response
                ? extractAdcpErrorFromJsonRpc(response)
                : extractAdcpErrorFromMcp(response)
              : extractAdcpError(response);
        return all(id, [
          expectEqual(id, 'error', error, v['expected_error']),
          expectEqual(id, 'action', recoveryAction(error), v['expected_action']),
        ]);
      });
    });
  },
};
