// RFC 9421 receivers in a fleet must share one replay cache (security.md): a signature accepted
// by one receiver is refused as replayed by another when both use the PostgreSQL replay store.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { signWebhookRequest } from '../../src/webhooks/sign-webhook-request.js';
import { PgDatabase } from '../../src/store/pg-database.js';
import { PgDedupStore } from '../../src/store/pg-dedup-store.js';
import { PgReplayStore } from '../../src/store/pg-replay-store.js';
import { PgOperationStore } from '../../src/store/pg-operation-store.js';
import { URL_BASE, envelope, makeKey } from '../webhooks/helpers.js';
import { dropTestSchemas, pgSkip, pgUrl, testSchema } from './pg-test-env.js';

describe('RFC 9421 receivers sharing the PostgreSQL replay cache', { skip: pgSkip }, () => {
  const databases: PgDatabase[] = [];
  after(async () => {
    for (const db of databases) await db.close();
    await dropTestSchemas();
  });

  it('refuses on receiver B a signature first accepted by receiver A', async () => {
    const seller = makeKey('seller-fleet');
    const schema = testSchema('replayfleet');
    const receiver = () => {
      const db = new PgDatabase({ url: pgUrl as string, schema });
      databases.push(db);
      return createWebhookHandler({
        signature: {
          scheme: 'rfc9421',
          jwks: { keys: [seller.publicJwk] },
          replay: new PgReplayStore({ database: db }),
        },
        dedup: new PgDedupStore({ database: db }),
        operations: new PgOperationStore({ database: db }),
      });
    };
    const [a, b] = [receiver(), receiver()];
    const body = JSON.stringify(envelope());
    const headers = signWebhookRequest({ url: URL_BASE, body, key: seller.signing });
    const first = await a.fetch(new Request(URL_BASE, { method: 'POST', headers, body }));
    assert.equal(first.status, 200);
    const replayed = await b.fetch(new Request(URL_BASE, { method: 'POST', headers, body }));
    assert.equal(replayed.status, 401);
    assert.equal(replayed.headers.get('www-authenticate'), 'Signature error="webhook_signature_replayed"');
    // A fresh signature of the same event (a sender's retry) is a duplicate, answered 200, on either.
    const retry = signWebhookRequest({ url: URL_BASE, body, key: seller.signing });
    assert.equal((await b.fetch(new Request(URL_BASE, { method: 'POST', headers: retry, body }))).status, 200);
  });
});
