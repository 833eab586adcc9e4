import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { withoutListenStream } from './without-listen-stream.js';

/** A fetch that records what reached it and answers 200. */
function recording(): { fetch: typeof fetch; seen: string[] } {
  const seen: string[] = [];
  const base: typeof fetch = (_input, init) => {
    seen.push(init?.method ?? 'GET');
    return Promise.resolve(new Response('ok', { status: 200 }));
  };
  return { fetch: base, seen };
}

describe('withoutListenStream', () => {
  it('answers the standalone GET with 405 without sending it', async () => {
    const { fetch, seen } = recording();
    const wrapped = withoutListenStream(fetch);
    const headers = new Headers({ accept: 'text/event-stream' });
    assert.equal((await wrapped('http://127.0.0.1:1/mcp', { method: 'GET', headers })).status, 405);
    assert.equal((await wrapped('http://127.0.0.1:1/mcp')).status, 405);
    assert.deepEqual(seen, []);
  });

  it('sends a GET that resumes a stream (Last-Event-ID), whatever form the headers take', async () => {
    const { fetch, seen } = recording();
    const wrapped = withoutListenStream(fetch);
    const forms: NonNullable<RequestInit['headers']>[] = [
      new Headers({ 'Last-Event-ID': '7' }),
      { 'Last-Event-Id': '7' },
      [['last-event-id', '7']],
    ];
    for (const headers of forms) assert.equal((await wrapped('http://127.0.0.1:1/mcp', { headers })).status, 200);
    assert.deepEqual(seen, ['GET', 'GET', 'GET']);
  });

  it('sends every other method', async () => {
    const { fetch, seen } = recording();
    const wrapped = withoutListenStream(fetch);
    for (const method of ['POST', 'DELETE', 'post']) {
      assert.equal((await wrapped('http://127.0.0.1:1/mcp', { method })).status, 200);
    }
    assert.deepEqual(seen, ['POST', 'DELETE', 'post']);
  });
});
