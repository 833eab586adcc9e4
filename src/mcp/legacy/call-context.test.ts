import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openCallScope, RequestLedger, requestIdOf } from './call-context.js';
import { deadlineSignal } from '../../transport/deadline-signal.js';
import { AdcpWireError } from '../../core/wire-error.js';

describe('the MCP call scope', () => {
  it('aborts its own signal when the parent signal or deadline fires, and stops listening once ended', async () => {
    const caller = new AbortController();
    const scope = openCallScope(100, caller.signal);
    caller.abort('stop');
    await assert.rejects(scope.failed, (e: unknown) => e instanceof AdcpWireError && e.code === 'aborted');
    assert.equal(scope.context.signal.aborted, true);

    const deadline = deadlineSignal(5, undefined, 'the test');
    const timed = openCallScope(100, deadline);
    await assert.rejects(timed.failed, (e: unknown) => e instanceof AdcpWireError && e.code === 'timeout');
    assert.equal(timed.context.signal.aborted, true);

    const later = deadlineSignal(60_000, undefined, 'the test');
    const ended = openCallScope(100, later);
    ended.end();
    later.dispose();
    assert.equal(ended.context.signal.aborted, false);
  });
});

describe('RequestLedger', () => {
  it("finds the call of a request by the id in the body the SDK sends, until the call's request is over", () => {
    const ledger = new RequestLedger();
    const a = openCallScope(100).context;
    const b = openCallScope(200).context;
    ledger.add(3, a);
    ledger.add('x', b);
    const request = (id: unknown) =>
      JSON.stringify({ method: 'tools/call', params: { name: 't' }, jsonrpc: '2.0', id });
    assert.deepEqual(ledger.find(request(3)), { call: a, requestId: 3 });
    assert.deepEqual(ledger.find(request('x')), { call: b, requestId: 'x' });
    assert.equal(ledger.find(request(4)), undefined);
    ledger.release(a);
    assert.equal(ledger.find(request(3)), undefined);
    assert.deepEqual(ledger.find(request('x')), { call: b, requestId: 'x' });
  });

  it('gives no call to notifications, answers to the server, non-JSON or non-string bodies', () => {
    const ledger = new RequestLedger();
    ledger.add(5, openCallScope(100).context);
    assert.equal(
      ledger.find(JSON.stringify({ method: 'notifications/cancelled', params: { requestId: 5 }, jsonrpc: '2.0' })),
      undefined,
    );
    // An answer to the server's own request 5 is not our request 5.
    assert.equal(ledger.find(JSON.stringify({ result: {}, jsonrpc: '2.0', id: 5 })), undefined);
    assert.equal(ledger.find('not json'), undefined);
    assert.equal(ledger.find(undefined), undefined);
  });
});

describe('requestIdOf', () => {
  it('reads the id of a request in any key order, and of none other', () => {
    assert.equal(requestIdOf('{"method":"tools/call","params":{"id":9},"jsonrpc":"2.0","id":12}'), 12);
    assert.equal(requestIdOf('{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"id":9}}'), 12);
    assert.equal(requestIdOf('{"method":"tools/call","params":{"a":",\\"id\\":7"},"jsonrpc":"2.0","id":"r-1"}'), 'r-1');
    assert.equal(requestIdOf('{"method":"notifications/progress","params":{"x":1,"id":9}}'), undefined);
    assert.equal(requestIdOf('{"result":{},"jsonrpc":"2.0","id":4}'), undefined);
    assert.equal(requestIdOf('[{"method":"a","id":1}]'), undefined);
    assert.equal(requestIdOf('{"method":"a","id":1'), undefined);
  });
});
