import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { currentRequest, openCallScope, runAsRequest, runInCall, runOutsideCalls } from './call-context.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('the MCP call scope', () => {
  it('finds the call and request id of a request across awaits, without reading its body', async () => {
    const a = openCallScope(100).context;
    const b = openCallScope(200).context;
    const seen = await Promise.all([
      runInCall(a, () =>
        runAsRequest(1, async () => {
          await tick();
          return currentRequest();
        }),
      ),
      runInCall(b, async () => {
        await tick();
        return runAsRequest('x', async () => {
          await tick();
          return currentRequest();
        });
      }),
    ]);
    assert.equal(seen[0]?.call, a);
    assert.equal(seen[0]?.requestId, 1);
    assert.equal(seen[1]?.call, b);
    assert.equal(seen[1]?.requestId, 'x');
  });

  it('gives no request to code inside a call but outside a request, nor to the session outside calls', async () => {
    const call = openCallScope(100).context;
    assert.equal(await runInCall(call, async () => (await tick(), currentRequest())), undefined);
    const outside = runInCall(call, () => runOutsideCalls(() => runAsRequest(5, () => currentRequest())));
    assert.equal(outside, undefined);
    assert.equal(
      runAsRequest(7, () => currentRequest()),
      undefined,
    );
  });
});
