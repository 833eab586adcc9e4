import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/index.js';
import { startMcpTestServer, submitThenCompleteTools, type TestServer } from '../mcp/helpers/mcp-test-server.js';
import { fakeClock } from './helpers/fake-clock.js';

// Issue 10 item 11: a timer past 2^31-1 ms overflows in Node (TimeoutOverflowWarning) and fires
// after 1 ms; long waits are the spec's normal case, so a 30-day timeout must simply work.
const THIRTY_DAYS_MS = 30 * 24 * 3600 * 1000;

describe('AdcpClient with timeouts longer than 2^31-1 ms', () => {
  let server: TestServer;
  let client: AdcpClient;
  before(async () => {
    server = await startMcpTestServer({
      tools: submitThenCompleteTools('t-long', { status: 'completed', media_buy_id: 'mb-long' }),
    });
    client = new AdcpClient({ url: server.url, protocol: 'mcp', clock: fakeClock(), timeoutMs: THIRTY_DAYS_MS });
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  it('call() answers instead of timing out at once', async () => {
    const result = await client.call('create_media_buy', {}, { timeoutMs: THIRTY_DAYS_MS });
    assert.equal(result.status, 'submitted');
  });

  it('waitFor() follows the task to its end instead of timing out at once', async () => {
    const first = await client.call('create_media_buy', {});
    const final = await client.waitFor(first, { timeoutMs: THIRTY_DAYS_MS, pollIntervalMs: 10 });
    assert.equal(final.status, 'completed');
    assert.equal(final.data?.['media_buy_id'], 'mb-long');
  });
});
