// waitFor after returnImmediately over A2A: the A2A task ends carrying an AdCP `submitted` result
// with a task_id, and waitFor must follow that AdCP task to its end (issue: it kept reporting
// `submitted` until its own timeout).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/index.js';
import { startReferenceSeller } from '../../src/seller/index.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';

const BUY = {
  account: { brand: { domain: 'acmeoutdoor.example' }, operator: 'pinnacle-agency.example' },
  brand: { domain: 'acmeoutdoor.example' },
  start_time: 'asap',
  end_time: '2099-12-31T23:59:59Z',
  packages: [{ product_id: 'olv_pets', pricing_option_id: 'olv_pets-cpm', budget: 5 }],
};

describe('AdcpClient.waitFor follows the AdCP task an A2A task hands over', () => {
  let seller: ListeningAdcpServer;
  before(async () => {
    seller = await startReferenceSeller({
      port: 0,
      host: '127.0.0.1',
      timings: { workingAfterMs: 200, completeAfterMs: 600 },
    });
  });
  after(async () => seller.close());

  it('returnImmediately, then waitFor, ends completed with the media buy', async () => {
    const client = new AdcpClient({ url: seller.a2aUrl, protocol: 'a2a' });
    try {
      const first = await client.call('create_media_buy', BUY, { returnImmediately: true });
      assert.ok(first.status === 'working' || first.status === 'submitted', first.status);
      const seen: string[] = [];
      const done = await client.waitFor(first, {
        pollIntervalMs: 20,
        maxPollIntervalMs: 100,
        timeoutMs: 20_000,
        onProgress: (event) => seen.push(event.status),
      });
      assert.equal(done.status, 'completed', `statuses seen: ${seen.join(', ')}`);
      assert.match(String(done.data?.['media_buy_id']), /^mb_/);
    } finally {
      await client.close();
    }
  });
});
