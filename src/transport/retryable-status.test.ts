import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isRetryableStatus } from './retryable-status.js';

describe('isRetryableStatus', () => {
  it('retries 429 and every 5xx', () => {
    for (const status of [429, 500, 501, 502, 503, 504, 599])
      assert.equal(isRetryableStatus(status), true, `${status}`);
  });
  it('does not retry 2xx, 3xx, other 4xx, statuses outside HTTP, or no status', () => {
    for (const status of [200, 204, 301, 400, 401, 403, 404, 408, 409, 413, 428, 430, 600, 0, -1])
      assert.equal(isRetryableStatus(status), false, `${status}`);
    assert.equal(isRetryableStatus(undefined), false);
  });
});
