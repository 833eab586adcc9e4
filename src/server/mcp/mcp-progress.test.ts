import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { progressReporter } from './mcp-progress.js';

describe('progressReporter', () => {
  it('keeps progress increasing with each notification (MCP), whatever the reports say', () => {
    const report = progressReporter('tok');
    const sent = [
      report('Starting'),
      report('Ranking', { percentage: 40, step: 'rank' }),
      report('Still ranking'),
      report('Ranking', { percentage: 40 }),
      report(undefined, { percentage: 30, step: 'back' }),
      report('Done', { percentage: 100 }),
      report('After'),
    ];
    const values = sent.map((params) => params.progress);
    assert.deepEqual(
      values,
      [...new Set(values)].sort((a, b) => a - b),
      `strictly increasing: ${values.join(', ')}`,
    );
    assert.deepEqual(sent[0], { progressToken: 'tok', progress: 0, message: 'Starting' });
    assert.deepEqual(sent[1], { progressToken: 'tok', progress: 40, total: 100, message: 'Ranking' });
    assert.equal(sent[4]?.message, 'back');
    assert.equal(sent[5]?.total, 100);
    assert.equal(sent[6]?.total, undefined, 'no total once past it');
  });

  it('starts each request afresh', () => {
    assert.equal(progressReporter(1)('a').progress, 0);
    assert.equal(progressReporter(2)('b').progress, 0);
  });
});
