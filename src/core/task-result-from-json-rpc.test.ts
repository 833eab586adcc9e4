import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { taskResultFromJsonRpcError } from './task-result-from-json-rpc.js';

const rpc = (code: number, adcpError: unknown) => ({
  jsonrpc: '2.0',
  id: 1,
  error: { code, message: 'Rate limited\n', data: { adcp_error: adcpError } },
});

describe('taskResultFromJsonRpcError', () => {
  it('turns each reserved code carrying adcp_error into a failed result', () => {
    for (const [code, adcp] of [
      [-32029, 'RATE_LIMITED'],
      [-32028, 'AUTH_MISSING'],
      [-32027, 'SERVICE_UNAVAILABLE'],
    ] as const) {
      const result = taskResultFromJsonRpcError(rpc(code, { code: adcp }));
      assert.equal(result?.status, 'failed');
      assert.equal(result?.status === 'failed' && result.error.code, adcp);
    }
  });
  it('accepts the error member alone and keeps the raw input', () => {
    const error = rpc(-32029, { code: 'RATE_LIMITED', retry_after: 9 }).error;
    const result = taskResultFromJsonRpcError(error, { protocol: 'a2a' });
    assert.equal(result?.raw, error);
    assert.equal(result?.protocol, 'a2a');
    assert.equal(result?.status === 'failed' && result.error.retryDelaySeconds, 9);
    assert.equal(result?.message, 'Rate limited');
  });
  it('returns null without a valid adcp_error', () => {
    assert.equal(
      taskResultFromJsonRpcError({ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'Invalid' } }),
      null,
    );
    assert.equal(taskResultFromJsonRpcError(rpc(-32029, { code: 429 })), null);
    assert.equal(taskResultFromJsonRpcError('nope'), null);
  });
});
