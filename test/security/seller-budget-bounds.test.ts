// Issue 36, item 12: the reference seller accepted a package budget of 1e308 (finite, so it passed
// the check), which overflows its totals to Infinity. Budgets above a trillion are refused with
// INVALID_REQUEST naming the field (docs/decisions/0127).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { startReferenceSeller } from '../../src/seller/start-reference-seller.js';
import type { ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { mcpPost, openMcpSession } from './raw-http.js';

describe('reference seller package budgets', () => {
  let seller: ReferenceSeller;
  let session: string;
  before(async () => {
    seller = await startReferenceSeller({ sendWebhook: async () => undefined });
    session = await openMcpSession(seller.mcpUrl);
  });
  after(() => seller.close());

  const buy = async (budget: number) => {
    const input = mediaBuyRequest([{ ...packageRequest('display_news', 10), budget }], {
      idempotency_key: randomUUID(),
    });
    // Over MCP: A2A's profile already refuses integers past 2^53 (Part.data is a protobuf double).
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'create_media_buy', arguments: input },
    });
    const answer = await mcpPost(seller.mcpUrl, session, body);
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    return answer.text;
  };

  for (const budget of [1e308, 1e13]) {
    it(`refuses a budget of ${budget} with INVALID_REQUEST on packages[0].budget`, async () => {
      const text = await buy(budget);
      assert.match(text, /INVALID_REQUEST/);
      assert.match(text, /packages\[0\]\.budget/);
    });
  }

  it('takes a budget of a trillion', async () => {
    assert.doesNotMatch(await buy(1e12), /INVALID_REQUEST/);
  });
});
