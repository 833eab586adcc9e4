import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runMaybeAsync, wait } from './maybe-async.js';

function* sum(values: Array<number | Promise<number>>): Generator<unknown, number, unknown> {
  let total = 0;
  for (const value of values) {
    try {
      total += yield* wait(value);
    } catch (error) {
      total += (error as { add: number }).add;
    }
  }
  return total;
}

describe('runMaybeAsync', () => {
  it('answers at once when nothing it waits on is a promise', () => {
    assert.equal(runMaybeAsync(sum([1, 2, 3])), 6);
  });

  it('continues asynchronously from the first promise, with every later value', async () => {
    const result = runMaybeAsync(sum([1, Promise.resolve(2), 3, Promise.resolve(4)]));
    assert.ok(result instanceof Promise);
    assert.equal(await result, 10);
  });

  it('throws a rejection into the checklist at its wait, where its own catch sees it', async () => {
    assert.equal(await runMaybeAsync(sum([1, Promise.reject(Object.assign(new Error('x'), { add: 40 })), 1])), 42);
  });

  it('rejects with an error the checklist does not catch', async () => {
    function* failing(): Generator<unknown, number, unknown> {
      yield* wait(Promise.resolve(1));
      throw new RangeError('after the wait');
    }
    await assert.rejects(Promise.resolve(runMaybeAsync(failing())), RangeError);
  });
});
