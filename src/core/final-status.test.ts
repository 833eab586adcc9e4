import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isFinalStatus } from './final-status.js';
import { INTERIM_STATUSES, TASK_STATUSES } from './types.js';

describe('isFinalStatus', () => {
  it('is true for completed, failed, canceled and rejected only', () => {
    assert.deepEqual(
      TASK_STATUSES.filter((status) => isFinalStatus(status)),
      ['completed', 'failed', 'rejected', 'canceled'],
    );
    for (const status of INTERIM_STATUSES) assert.equal(isFinalStatus(status), false, status);
  });
  it('is false for the MCP spelling cancelled, other strings and non-strings', () => {
    for (const value of ['cancelled', 'COMPLETED', '', undefined, null, 1]) assert.equal(isFinalStatus(value), false);
  });
});
