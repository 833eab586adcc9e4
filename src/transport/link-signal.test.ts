import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { linkSignal } from './link-signal.js';

describe('linkSignal', () => {
  it('aborts with the reason of whichever source aborts', () => {
    const a = new AbortController();
    const b = new AbortController();
    const link = linkSignal(a.signal, b.signal);
    b.abort('closed');
    assert.equal(link.signal.aborted, true);
    assert.equal(link.signal.reason, 'closed');
  });

  it('starts aborted when a source already is', () => {
    const a = new AbortController();
    a.abort('early');
    assert.equal(linkSignal(a.signal, new AbortController().signal).signal.reason, 'early');
  });

  it('stops following its sources once disposed', () => {
    const a = new AbortController();
    const link = linkSignal(undefined, a.signal);
    link.dispose();
    a.abort('late');
    assert.equal(link.signal.aborted, false);
  });
});
