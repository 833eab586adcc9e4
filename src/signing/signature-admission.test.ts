import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideAdmission, signingModeOf } from './signature-admission.js';

describe('signingModeOf', () => {
  const lists = {
    requiredFor: ['create_media_buy'],
    warnFor: ['update_media_buy'],
    protocolMethodsRequiredFor: ['tasks/cancel'],
    protocolMethodsWarnFor: ['tasks/get'],
  };
  it('matches AdCP operations against the operation lists only', () => {
    assert.equal(signingModeOf({ method: 'tools/call', operation: 'create_media_buy' }, lists), 'required_for');
    assert.equal(signingModeOf({ method: 'SendMessage', operation: 'update_media_buy' }, lists), 'warn_for');
    assert.equal(signingModeOf({ method: 'tools/call', operation: 'get_products' }, lists), 'supported_for');
  });
  it('matches JSON-RPC methods against the protocol-method lists, never a tools/call', () => {
    assert.equal(signingModeOf({ method: 'tasks/cancel' }, lists), 'protocol_methods_required_for');
    assert.equal(signingModeOf({ method: 'tasks/get' }, lists), 'protocol_methods_warn_for');
    assert.equal(signingModeOf({ method: 'tasks/list' }, lists), 'protocol_methods_supported_for');
    assert.equal(signingModeOf({ method: 'tools/call', operation: 'tasks/cancel' }, lists), 'supported_for');
    assert.equal(signingModeOf({ method: 'tools/call' }, lists), 'supported_for');
  });
});

describe('decideAdmission', () => {
  const failed = { kind: 'failed', code: 'request_signature_invalid' } as const;
  const malformed = { kind: 'failed', code: 'request_signature_header_malformed' } as const;
  it('accepts a verified signature as the signer identity in every mode', () => {
    assert.deepEqual(decideAdmission('warn_for', { kind: 'verified', keyid: 'k' }, false), {
      action: 'accept',
      source: 'signature',
      keyid: 'k',
    });
  });
  it('refuses an unsigned required call only without another credential', () => {
    assert.deepEqual(decideAdmission('required_for', { kind: 'absent' }, false), {
      action: 'reject',
      code: 'request_signature_required',
    });
    assert.deepEqual(decideAdmission('required_for', { kind: 'absent' }, true), {
      action: 'accept',
      source: 'fallback',
    });
    assert.deepEqual(decideAdmission('supported_for', { kind: 'absent' }, false), { action: 'accept', source: 'none' });
  });
  it('under warn_for records a missing signature when the call has another credential', () => {
    assert.deepEqual(decideAdmission('protocol_methods_warn_for', { kind: 'absent' }, true), {
      action: 'accept_with_warning',
      source: 'fallback',
      code: 'request_signature_required',
    });
    assert.deepEqual(decideAdmission('warn_for', { kind: 'absent' }, false), { action: 'accept', source: 'none' });
  });
  it('judges a signed call on its merits outside warn_for, even with another credential', () => {
    assert.deepEqual(decideAdmission('supported_for', failed, true), {
      action: 'reject',
      code: 'request_signature_invalid',
    });
    assert.deepEqual(decideAdmission('required_for', failed, true), {
      action: 'reject',
      code: 'request_signature_invalid',
    });
  });
  it('under warn_for continues a failed signature only under another credential', () => {
    assert.deepEqual(decideAdmission('warn_for', failed, true), {
      action: 'accept_with_warning',
      source: 'fallback',
      code: 'request_signature_invalid',
    });
    assert.deepEqual(decideAdmission('warn_for', failed, false), {
      action: 'reject_unauthenticated',
      code: 'request_signature_invalid',
    });
  });
  it('rejects a malformed header pair in every mode, whatever the credential', () => {
    for (const mode of ['warn_for', 'protocol_methods_warn_for', 'supported_for'] as const) {
      assert.deepEqual(decideAdmission(mode, malformed, true), {
        action: 'reject',
        code: 'request_signature_header_malformed',
      });
    }
  });
});
