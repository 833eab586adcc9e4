import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpWireError } from '../core/wire-error.js';
import { profileRuleOf, rpcErrorToResult } from './rpc-error.js';

const endpoint = { wire: '1.0' as const, url: 'http://127.0.0.1:1/a2a' };
const refusal = (code: number, rule: unknown) => ({
  code,
  message: `${String(rule)}: refused`,
  data: [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'INVALID_PARAMS',
      domain: 'a2a-protocol.org',
      metadata: { profile_error: rule },
    },
  ],
});

describe('rpcErrorToResult', () => {
  it('carries the profile rule an agent names in ErrorInfo on the thrown error', () => {
    assert.throws(
      () => rpcErrorToResult(refusal(-32602, 'invalid_invocation_shape'), endpoint, 'get_products', 'auto'),
      (e: unknown) => e instanceof AdcpWireError && e.code === 'refused' && e.rule === 'invalid_invocation_shape',
    );
    assert.throws(
      () => rpcErrorToResult(refusal(-32008, 'extension_not_activated'), endpoint, 'get_products', 'auto'),
      (e: unknown) => e instanceof AdcpWireError && e.code === 'protocol' && e.rule === 'extension_not_activated',
    );
  });

  it('ignores a rule it does not know', () => {
    assert.equal(profileRuleOf(refusal(-32602, 'drop_tables').data), undefined);
    assert.equal(profileRuleOf('x'), undefined);
  });
});
