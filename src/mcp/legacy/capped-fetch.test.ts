import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createCappedFetch } from './capped-fetch.js';
import { openCallScope, RequestLedger } from './call-context.js';

const answer = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { content: [], structuredContent: { ok: true } } });

/** The capped fetch over a canned server answering every POST with `body` as SSE, its length declared or not. */
async function fetchSse(body: string, declared = true) {
  const canned = (async () =>
    new Response(body, {
      headers: {
        'content-type': 'text/event-stream',
        ...(declared ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
      },
    })) as typeof fetch;
  const ledger = new RequestLedger();
  const scope = openCallScope(1 << 20);
  ledger.add(7, scope.context);
  const problems: string[] = [];
  const fail = scope.context.fail.bind(scope.context);
  scope.context.fail = (error) => {
    problems.push(error.message);
    fail(error);
  };
  const fetcher = createCappedFetch({ fetch: canned, maxBytes: 1 << 20, url: 'http://agent.test/mcp' }).fetchFor(
    ledger,
  );
  const response = await fetcher('http://agent.test/mcp', {
    method: 'POST',
    body: '{"method":"tools/call","params":{},"jsonrpc":"2.0","id":7}',
  });
  return { response, problems, context: scope.context };
}

describe("capped fetch: a call's SSE answer", () => {
  it('passes the same bytes to the SDK, as the event stream it is', async () => {
    const progress = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } });
    for (const [body, declared] of [
      [`event: message\ndata: ${answer}\n\n`, true],
      [`data: ${progress}\n\ndata: ${answer}\n\n`, true],
      [`id: e1\ndata: ${answer}\n\n`, true],
      [`data: ${answer}\n\n`, false],
    ] as const) {
      const { response, problems } = await fetchSse(body, declared);
      assert.equal(response.headers.get('content-type'), 'text/event-stream', body);
      assert.equal(await new Response(response.body).text(), body, 'the same bytes');
      assert.deepEqual(problems, []);
    }
  });

  it('keeps a JSON-RPC error answer for the call, as the JSON path does', async () => {
    const error = JSON.stringify({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'bad', data: { x: 1 } } });
    const { response, context } = await fetchSse(`event: message\r\ndata: ${error}\r\n\r\n`);
    await new Response(response.body).text();
    assert.deepEqual(context.rpcError, { code: -32602, message: 'bad', data: { x: 1 } });
  });

  it('still fails a call whose SSE answer answers another request', async () => {
    const other = answer.replace('"id":7', '"id":8');
    const { response, problems } = await fetchSse(`data: ${other}\n\n`);
    await new Response(response.body).text();
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? '', /ended without an answer to the request/);
  });
});

describe('capped fetch: the cap', () => {
  it('counts the body even when its declared length is within the cap', async () => {
    // A fetch of the user's may declare any length: the cap is on the bytes read.
    const big = `data: ${JSON.stringify({ jsonrpc: '2.0', id: 7, result: { pad: 'x'.repeat(4096) } })}\n\n`;
    const canned = (async () =>
      new Response(big, { headers: { 'content-type': 'text/event-stream', 'content-length': '10' } })) as typeof fetch;
    const ledger = new RequestLedger();
    const scope = openCallScope(1024);
    ledger.add(7, scope.context);
    const fetcher = createCappedFetch({ fetch: canned, maxBytes: 1 << 20, url: 'http://agent.test/mcp' }).fetchFor(
      ledger,
    );
    const response = await fetcher('http://agent.test/mcp', {
      method: 'POST',
      body: '{"method":"tools/call","params":{},"jsonrpc":"2.0","id":7}',
    });
    await assert.rejects(new Response(response.body).text(), /over 1024 bytes/);
    assert.equal(scope.context.signal.aborted, true);
  });
});
