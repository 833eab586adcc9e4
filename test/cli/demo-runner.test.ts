import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runSteps, type DemoStep } from '../../src/cli/demo-runner.js';
import { renderSummary, summaryToJson } from '../../src/cli/demo-summary.js';
import { createStyle } from '../../src/cli/style.js';

const step = (title: string, run: DemoStep['run']): DemoStep => ({ title, expect: 'x', run });
const hooks = (lines: string[]) => ({
  start: (i: number, s: DemoStep) => lines.push(`start ${i} ${s.title}`),
  say: (line: string) => lines.push(line),
  end: (o: { title: string; ok: boolean }) => lines.push(`end ${o.title} ${o.ok}`),
});

describe('runSteps', () => {
  it('runs every step in order and keeps going after a failure', async () => {
    const lines: string[] = [];
    const outcomes = await runSteps(
      [
        step('a', async (say) => (say('hello'), { ok: true, got: 'fine' })),
        step('b', async () => {
          throw new Error('boom\r\nforged');
        }),
        step('c', async () => ({ ok: false, got: 'wrong' })),
      ],
      hooks(lines),
      { stepTimeoutMs: 1000 },
    );
    assert.deepEqual(lines, [
      'start 0 a',
      'hello',
      'end a true',
      'start 1 b',
      'end b false',
      'start 2 c',
      'end c false',
    ]);
    assert.deepEqual(
      outcomes.map((o) => [o.ok, o.got]),
      [
        [true, 'fine'],
        [false, 'error: boom forged'],
        [false, 'wrong'],
      ],
    );
  });

  it('fails a step that takes longer than its bound', async () => {
    const outcomes = await runSteps([step('slow', () => new Promise(() => undefined))], hooks([]), {
      stepTimeoutMs: 20,
    });
    assert.equal(outcomes[0]?.ok, false);
    assert.match(outcomes[0]?.got ?? '', /slow took longer than 0.02 s/);
  });
});

describe('renderSummary', () => {
  const outcomes = [
    { title: 'discover', expect: 'tools', got: '8 tools', ok: true, ms: 120 },
    { title: 'rate limit', expect: 'retried', got: 'failed', ok: false, ms: 2000 },
  ];

  it('shows one row per step and says how many failed', () => {
    const text = renderSummary(outcomes, 2120, createStyle(false));
    assert.match(text, /1  discover +tools +8 tools +ok +0\.12 s/);
    assert.match(text, /2  rate limit +retried +failed +FAIL +2\.00 s/);
    assert.match(text, /1 of 2 steps did not do what they should\./);
  });

  it('is ok only when every step is', () => {
    assert.equal(summaryToJson(outcomes, 1).ok, false);
    assert.equal(summaryToJson(outcomes.slice(0, 1), 1).ok, true);
  });
});
