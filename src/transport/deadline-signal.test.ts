import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { AdcpWireError } from '../core/wire-error.js';
import { deadlineSignal } from './deadline-signal.js';

const made = { controllers: 0 };
const NativeAbortController = globalThis.AbortController;
globalThis.AbortController = class CountedAbortController extends NativeAbortController {
  constructor() {
    super();
    made.controllers++;
  }
};

const isTimeout = (reason: unknown) => reason instanceof AdcpWireError && reason.code === 'timeout';
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('deadlineSignal', () => {
  it('makes no AbortController until its signal is read', () => {
    made.controllers = 0;
    const deadline = deadlineSignal(60_000, undefined, 'work');
    const unlisten = deadline.onAbort(() => undefined);
    assert.equal(deadline.aborted, false);
    unlisten();
    assert.equal(made.controllers, 0);
    assert.equal(deadline.signal.aborted, false);
    assert.equal(deadline.signal, deadline.signal);
    assert.equal(made.controllers, 1);
    deadline.dispose();
  });

  it('times out with a timeout error, to listeners, to a signal read before, and to one read after', async () => {
    const early = deadlineSignal(5, undefined, 'slow work');
    const signal = early.signal;
    const heard: unknown[] = [];
    early.onAbort((reason) => heard.push(reason));
    const late = deadlineSignal(5, undefined, 'slow work');
    await wait(30);
    assert.ok(isTimeout(signal.reason));
    assert.equal(heard.length, 1);
    assert.ok(isTimeout(heard[0]));
    assert.match((heard[0] as Error).message, /slow work did not finish within 5 ms/);
    assert.equal(late.aborted, true);
    assert.ok(isTimeout(late.signal.reason));
  });

  it("follows the parent's abort with its reason, and an already aborted parent at once", () => {
    const parent = new NativeAbortController();
    const deadline = deadlineSignal(60_000, parent.signal, 'work');
    const heard: unknown[] = [];
    deadline.onAbort((reason) => heard.push(reason));
    const removed: unknown[] = [];
    deadline.onAbort((reason) => removed.push(reason))();
    parent.abort('stop');
    assert.deepEqual(heard, ['stop']);
    assert.deepEqual(removed, []);
    assert.equal(deadline.signal.reason, 'stop');
    deadline.dispose();

    const gone = new NativeAbortController();
    gone.abort('before');
    const already = deadlineSignal(60_000, gone.signal, 'work');
    assert.equal(already.aborted, true);
    assert.equal(already.reason, 'before');
    assert.equal(already.signal.reason, 'before');
  });

  it("leaves no listener on the parent once disposed, and the timer can't fire after", async () => {
    const parent = new NativeAbortController();
    const deadline = deadlineSignal(5, parent.signal, 'work');
    assert.equal(getEventListeners(parent.signal, 'abort').length, 1);
    deadline.dispose();
    assert.equal(getEventListeners(parent.signal, 'abort').length, 0);
    await wait(30);
    assert.equal(deadline.aborted, false);
  });
});
