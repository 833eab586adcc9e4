import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { STANDARD_CODE_RECOVERY } from '../../core/recovery.js';
import { loadSchemaBundle } from '../../schemas/schema-bundle.js';
import { adcpError } from './adcp-error.js';
import { adcpErrorFromThrown, AdcpToolError } from './tool-error.js';

describe('adcpError', () => {
  it('fills in the registered recovery and a message from the code', () => {
    const error = adcpError('PRODUCT_NOT_FOUND', { field: 'packages[0].product_id' });
    assert.ok(error instanceof AdcpToolError);
    assert.deepEqual(error.toAdcpError(), {
      code: 'PRODUCT_NOT_FOUND',
      message: 'Product not found.',
      recovery: 'correctable',
      field: 'packages[0].product_id',
    });
    assert.equal(adcpError('ACCOUNT_SUSPENDED').recovery, 'terminal');
    assert.equal(adcpError('SERVICE_UNAVAILABLE').recovery, 'transient');
  });

  it('reads a standard code the library has no row for from the schema enumMetadata', () => {
    assert.equal(adcpError('CREATIVE_INACCESSIBLE').recovery, 'correctable');
    assert.equal(adcpError('BILLING_OUT_OF_BAND').recovery, 'terminal');
  });

  it('refuses to change a registered recovery', () => {
    assert.throws(() => adcpError('BUDGET_EXHAUSTED', { recovery: 'transient' }), TypeError);
  });

  it('requires retryAfter on RATE_LIMITED and rounds it up into 1..3600', () => {
    assert.throws(() => adcpError('RATE_LIMITED'), /retryAfter/);
    assert.equal(adcpError('RATE_LIMITED', { retryAfter: 0.2 }).toAdcpError().retry_after, 1);
    assert.equal(adcpError('RATE_LIMITED', { retryAfter: 2.1 }).toAdcpError().retry_after, 3);
    assert.equal(adcpError('RATE_LIMITED', { retryAfter: 1e9 }).toAdcpError().retry_after, 3600);
    assert.throws(() => adcpError('RATE_LIMITED', { retryAfter: Number.NaN }), TypeError);
  });

  it('takes seller codes only as X_VENDOR_CODE with a recovery', () => {
    assert.equal(adcpError('X_ACME_FLOOR_NOT_MET', { recovery: 'correctable' }).code, 'X_ACME_FLOOR_NOT_MET');
    assert.throws(() => adcpError('X_ACME_FLOOR_NOT_MET'), /recovery/);
    assert.throws(() => adcpError('NOT_A_CODE', { recovery: 'terminal' }), /X_VENDOR_CODE/);
  });

  it('keeps suggestion and details', () => {
    const wire = adcpError('BUDGET_TOO_LOW', {
      suggestion: 'Increase the budget.',
      details: { minimum_budget: 500, currency: 'USD' },
    }).toAdcpError();
    assert.equal(wire.suggestion, 'Increase the budget.');
    assert.deepEqual(wire.details, { minimum_budget: 500, currency: 'USD' });
  });
});

describe('STANDARD_CODE_RECOVERY', () => {
  for (const release of ['3.0', '3.1']) {
    it(`matches the enumMetadata of AdCP ${release} for every code the release defines`, () => {
      const codes = loadSchemaBundle(release).schema('enums/error-code.json') as {
        enum: string[];
        enumMetadata?: Record<string, { recovery: string }>;
      };
      let compared = 0;
      for (const [code, recovery] of STANDARD_CODE_RECOVERY) {
        const registered = codes.enumMetadata?.[code]?.recovery;
        if (registered === undefined || !codes.enum.includes(code)) continue;
        assert.equal(recovery, registered, code);
        compared += 1;
      }
      assert.ok(compared > 30, `compared ${compared}`);
    });
  }
});

describe('adcpErrorFromThrown', () => {
  it('answers anything but an AdcpToolError with SERVICE_UNAVAILABLE, revealing nothing of it', () => {
    const error = adcpErrorFromThrown(new Error('ECONNREFUSED postgres://admin:pw@10.0.0.1/prod at /opt/x.ts:1'));
    assert.deepEqual(error, {
      code: 'SERVICE_UNAVAILABLE',
      message: 'The agent failed to process the request.',
      recovery: 'transient',
    });
  });
});
