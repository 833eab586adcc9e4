// Issue 36, item 12: with two Authorization header lines, node keeps the first and drops the
// other, so which credential counted depended on their order. Two credentials are now no
// credential: refused with 401 invalid_token whichever of them is valid (docs/decisions/0126).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import { ACTIVATED_HEADERS, sendMessageBody } from '../server/profile-activation.js';
import { rawPost } from './raw-http.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef01';

describe('createAdcpServer with several Authorization headers', () => {
  const server = createAdcpServer({
    auth: { tokens: { [ALICE]: 'alice', [BOB]: 'bob' } },
    tools: [{ name: 'whoami', description: 'Who.', handler: (_args, ctx) => ({ principal: ctx.principal }) }],
  });
  let a2aUrl: string;
  before(async () => {
    a2aUrl = (await server.listen()).a2aUrl;
  });
  after(() => server.close());

  const call = (authorization: string | string[]) =>
    rawPost(a2aUrl, {
      body: sendMessageBody('whoami', {}),
      // node sends an array as one header line per value
      headers: { ...ACTIVATED_HEADERS, authorization } as unknown as Record<string, string>,
    });

  it('answers one valid token', async () => {
    const answer = await call(`Bearer ${ALICE}`);
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    assert.match(answer.text, /"principal":"alice"/);
  });

  for (const pair of [
    [`Bearer ${ALICE}`, `Bearer ${BOB}`],
    [`Bearer ${BOB}`, `Bearer ${ALICE}`],
    [`Bearer ${ALICE}`, 'Bearer not-a-valid-token-at-all'],
    ['Bearer not-a-valid-token-at-all', `Bearer ${ALICE}`],
  ]) {
    it(`refuses two Authorization lines (${pair.map((p) => p.slice(7, 12)).join(', ')}) with 401 invalid_token`, async () => {
      const answer = await call(pair);
      assert.equal(answer.status, 401, answer.text.slice(0, 300));
      assert.match(String(answer.headers['www-authenticate']), /error="invalid_token"/);
      assert.doesNotMatch(answer.text, /alice|bob/);
    });
  }
});
