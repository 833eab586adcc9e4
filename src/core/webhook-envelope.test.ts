import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { validateWebhookEnvelope } from './webhook-envelope.js';

const good = {
  idempotency_key: '6f1c2a8e-9b1d-4c3e-8f2a-0d9e7b6a5c41',
  operation_id: 'op_1',
  task_id: 'task_1',
  task_type: 'create_media_buy',
  status: 'completed',
  timestamp: '2026-05-26T09:00:44.582Z',
  result: { media_buy_id: 'mb_1' },
};

function errorOf(payload: unknown): string | undefined {
  const check = validateWebhookEnvelope(payload);
  return check.ok ? undefined : check.error;
}

describe('validateWebhookEnvelope', () => {
  it('accepts a complete envelope and returns it', () => {
    const check = validateWebhookEnvelope(good);
    assert.equal(check.ok, true);
    assert.equal(check.ok && check.envelope.task_id, 'task_1');
  });
  it('takes a 3.0 envelope without operation_id from a 3.0 sender only (3.0 does not require it)', () => {
    const { operation_id: _omitted, ...v30 } = good;
    assert.equal(errorOf(v30), 'missing_envelope_fields');
    assert.equal(validateWebhookEnvelope(v30, { release: '3.1' }).ok, false);
    for (const release of ['3.0', '3.0.26', '3.0-rc.1'])
      assert.equal(validateWebhookEnvelope(v30, { release }).ok, true);
    // Present, it is still a non-empty string; every other field stays required.
    assert.equal(validateWebhookEnvelope({ ...good, operation_id: 7 }, { release: '3.0' }).ok, false);
    assert.equal(validateWebhookEnvelope({ ...v30, task_id: undefined }, { release: '3.0' }).ok, false);
  });
  it('refuses non-objects', () => {
    for (const v of [null, 'x', [good], 1]) assert.equal(errorOf(v), 'not_an_object');
  });
  it('refuses a bare result even when it has its own status field', () => {
    assert.equal(errorOf({ status: 'active', media_buy_deliveries: [] }), 'missing_envelope_fields');
  });
  it('refuses an envelope without or with a malformed idempotency_key', () => {
    assert.equal(errorOf({ ...good, idempotency_key: undefined }), 'missing_idempotency_key');
    assert.equal(errorOf({ ...good, idempotency_key: 'short' }), 'invalid_idempotency_key');
    assert.equal(errorOf({ ...good, idempotency_key: 'has spaces in it, sixteen+' }), 'invalid_idempotency_key');
    assert.equal(errorOf({ ...good, idempotency_key: 1234567890123456 }), 'invalid_idempotency_key');
  });
  it('refuses an envelope missing operation_id, task_id, task_type, status or timestamp', () => {
    for (const field of ['operation_id', 'task_id', 'task_type', 'status', 'timestamp']) {
      const check = validateWebhookEnvelope({ ...good, [field]: undefined });
      assert.deepEqual(check, { ok: false, error: 'missing_envelope_fields', field });
    }
  });
  it('refuses non-string required fields', () => {
    assert.deepEqual(validateWebhookEnvelope({ ...good, task_id: 7 }), {
      ok: false,
      error: 'invalid_field_type',
      field: 'task_id',
    });
    assert.deepEqual(validateWebhookEnvelope({ ...good, message: { x: 1 } }), {
      ok: false,
      error: 'invalid_field_type',
      field: 'message',
    });
  });
  it('refuses an unknown or A2A-shaped status', () => {
    assert.equal(errorOf({ ...good, status: 'COMPLETED' }), 'invalid_envelope_status');
    assert.equal(errorOf({ ...good, status: 'done' }), 'invalid_envelope_status');
    assert.equal(errorOf({ ...good, status: { state: 'completed' } }), 'invalid_field_type');
  });
  it('refuses a timestamp that is not an ISO 8601 date-time', () => {
    assert.equal(errorOf({ ...good, timestamp: '1700000000' }), 'invalid_timestamp');
    assert.equal(errorOf({ ...good, timestamp: '2026-13-40T00:00:00Z' }), 'invalid_timestamp');
  });
  it('refuses a result that is not an object', () => {
    assert.equal(errorOf({ ...good, result: [1] }), 'invalid_result');
    assert.equal(errorOf({ ...good, result: 'done' }), 'invalid_result');
  });
});
