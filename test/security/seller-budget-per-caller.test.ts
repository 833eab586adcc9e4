// Issue 10, item 10: the anonymous reference seller keeps one async budget per caller address,
// so one caller's burst of media buys does not make every other caller RATE_LIMITED.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { startReferenceSeller } from '../../src/seller/start-reference-seller.js';
import type { ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { ACTIVATED_HEADERS } from '../server/profile-activation.js';
import { rawPost, rpcMessage } from './raw-http.js';
import type { Json } from './raw-http.js';

describe('reference seller async budget', () => {
  let seller: ReferenceSeller;
  before(async () => {
    seller = await startReferenceSeller({
      sendWebhook: async () => undefined,
      taskPolicy: { rateLimit: { max: 3, windowMs: 60_000 } },
    });
  });
  after(() => seller.close());

  /** One A2A 1.0 create_media_buy from `localAddress`; the AdCP body of the answer. */
  const buy = async (n: number, localAddress: string): Promise<Json> => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: n,
      method: 'SendMessage',
      params: {
        message: {
          messageId: `m-${localAddress}-${n}`,
          role: 'ROLE_USER',
          parts: [
            {
              data: {
                skill: 'create_media_buy',
                input: mediaBuyRequest([packageRequest('display_ron', 1000)], {
                  idempotency_key: `k-${localAddress}-${n}-0000-0000-000000000000`,
                }),
              },
            },
          ],
        },
      },
    });
    const message = rpcMessage(await rawPost(seller.a2aUrl, { body, localAddress, headers: ACTIVATED_HEADERS }));
    const task = (message.result as Json).task as Json;
    const parts = ((task.artifacts as Json[])[0]!.parts as Json[]).filter((p) => p.data !== undefined);
    return parts.at(-1)!.data as Json;
  };

  it("leaves a second caller's budget whole after the first caller spends its own", async () => {
    for (let i = 0; i < 3; i += 1) assert.equal((await buy(i, '127.0.0.1')).status, 'submitted');
    const spent = await buy(3, '127.0.0.1');
    assert.equal((spent.adcp_error as Json | undefined)?.code, 'RATE_LIMITED');
    const other = await buy(0, '127.0.0.2');
    assert.equal(other.status, 'submitted', JSON.stringify(other));
  });
});
