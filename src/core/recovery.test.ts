import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getRecovery, recoveryAction, retryDelaySeconds, toResultError } from './recovery.js';

describe('getRecovery', () => {
  it('uses a known recovery value as sent, even against the code table', () => {
    assert.equal(getRecovery({ code: 'RATE_LIMITED', recovery: 'terminal' }), 'terminal');
  });
  it('treats an unknown recovery value as terminal', () => {
    assert.equal(getRecovery({ code: 'RATE_LIMITED', recovery: 'deferred' as never }), 'terminal');
    assert.equal(getRecovery({ code: 'RATE_LIMITED', recovery: 5 as never }), 'terminal');
  });
  it('falls back to the standard code table when recovery is absent', () => {
    assert.equal(getRecovery({ code: 'SERVICE_UNAVAILABLE' }), 'transient');
    assert.equal(getRecovery({ code: 'ACCOUNT_MOVED' }), 'correctable');
    assert.equal(getRecovery({ code: 'BUDGET_EXHAUSTED' }), 'terminal');
  });
  it('treats an unknown code without recovery as terminal', () => {
    assert.equal(getRecovery({ code: 'X_VENDOR_THING' }), 'terminal');
  });
  it('never reads Object.prototype for codes like constructor or __proto__', () => {
    assert.equal(getRecovery({ code: 'constructor' }), 'terminal');
    assert.equal(getRecovery({ code: '__proto__' }), 'terminal');
    assert.equal(getRecovery({ code: 'toString' }), 'terminal');
  });
});

describe('recoveryAction', () => {
  it('maps transient, correctable, terminal and no error to the four actions', () => {
    assert.equal(recoveryAction({ code: 'A', recovery: 'transient' }), 'retry');
    assert.equal(recoveryAction({ code: 'A', recovery: 'correctable' }), 'surface_to_caller');
    assert.equal(recoveryAction({ code: 'A', recovery: 'terminal' }), 'escalate_to_human');
    assert.equal(recoveryAction(null), 'generic_error');
  });
  it('escalates AUTH_REQUIRED when the request carried credentials', () => {
    assert.equal(recoveryAction({ code: 'AUTH_REQUIRED' }), 'surface_to_caller');
    assert.equal(recoveryAction({ code: 'AUTH_REQUIRED' }, { requestHadCredentials: true }), 'escalate_to_human');
  });
  it('escalates the per-agent PERMISSION_DENIED gate whatever the wire recovery', () => {
    assert.equal(
      recoveryAction({
        code: 'PERMISSION_DENIED',
        recovery: 'correctable',
        details: { scope: 'agent', reason: 'sandbox_only' },
      }),
      'escalate_to_human',
    );
    assert.equal(recoveryAction({ code: 'PERMISSION_DENIED', recovery: 'correctable' }), 'surface_to_caller');
  });
});

describe('retryDelaySeconds', () => {
  it('rounds up before clamping', () => {
    assert.equal(retryDelaySeconds({ retry_after: 2.1 }), 3);
    assert.equal(retryDelaySeconds({ retry_after: 0.2 }), 1);
    assert.equal(retryDelaySeconds({ retry_after: 3599.5 }), 3600);
  });
  it('clamps to 1..3600', () => {
    assert.equal(retryDelaySeconds({ retry_after: 0 }), 1);
    assert.equal(retryDelaySeconds({ retry_after: -50 }), 1);
    assert.equal(retryDelaySeconds({ retry_after: 86400 }), 3600);
  });
  it('returns null for absent, non-number and non-finite values', () => {
    for (const retry_after of [undefined, NaN, Infinity, -Infinity, '5', null]) {
      assert.equal(retryDelaySeconds({ retry_after } as never), null, String(retry_after));
    }
    assert.equal(retryDelaySeconds(null), null);
  });
});

describe('toResultError', () => {
  it('bundles the error with its code, recovery, action and delay', () => {
    const adcpError = { code: 'RATE_LIMITED', retry_after: 7.5 };
    assert.deepEqual(toResultError(adcpError), {
      adcpError,
      code: 'RATE_LIMITED',
      recovery: 'transient',
      action: 'retry',
      retryDelaySeconds: 8,
    });
  });
});
