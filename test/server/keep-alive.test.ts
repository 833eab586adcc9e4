// createAdcpServer.listen keeps idle connections open longer than a load balancer's idle timeout
// (65 s by default, `keepAliveTimeoutMs`), so a pooled socket is not closed under a caller that
// is about to reuse it. Node's default (5 s) lost requests when the event loop was held past it
// between two calls (a long synchronous compile, a loaded machine): the server's timer closed the
// socket as the client's pool handed it to a POST, which fetch does not retry ("other side
// closed"; seen in test/server/discovery-schemas.test.ts).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import { testTools } from './fixtures.js';

describe('createAdcpServer keep-alive', () => {
  it('advertises 65 s by default', async () => {
    const adcp = createAdcpServer({ validateRequests: false, tools: testTools(), authenticate: () => null });
    after(() => adcp.close());
    const { url } = await adcp.listen();
    const first = await fetch(`${url}/healthz`);
    await first.text();
    assert.equal(first.headers.get('keep-alive'), 'timeout=65');
  });

  it('takes keepAliveTimeoutMs, and refuses one that is not a positive number', async () => {
    const adcp = createAdcpServer({
      validateRequests: false,
      tools: testTools(),
      authenticate: () => null,
      keepAliveTimeoutMs: 7_000,
    });
    after(() => adcp.close());
    const { url } = await adcp.listen();
    const answer = await fetch(`${url}/healthz`);
    await answer.text();
    assert.equal(answer.headers.get('keep-alive'), 'timeout=7');
    for (const keepAliveTimeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(
        () => createAdcpServer({ tools: testTools(), authenticate: () => null, keepAliveTimeoutMs }),
        /keepAliveTimeoutMs must be a positive number/,
      );
    }
  });
});
