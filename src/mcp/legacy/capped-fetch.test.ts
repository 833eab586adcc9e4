import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createCappedFetch, soleMessageData } from './capped-fetch.js';
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

describe('capped fetch: a whole SSE answer', () => {
  it('hands a declared-length answer of one message event to the SDK as the JSON it carries', async () => {
    const { response } = await fetchSse(`event: message\ndata: ${answer}\n\n`);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(await response.json(), JSON.parse(answer));
  });

  it('keeps a JSON-RPC error answer for the call, as the JSON path does', async () => {
    const error = JSON.stringify({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'bad', data: { x: 1 } } });
    const { response, context } = await fetchSse(`event: message\r\ndata: ${error}\r\n\r\n`);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(context.rpcError, { code: -32602, message: 'bad', data: { x: 1 } });
  });

  it('leaves to the SDK as a stream: progress before the answer, a resumable event, unreadable data, an undeclared length', async () => {
    const progress = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } });
    for (const [body, declared] of [
      [`data: ${progress}\n\ndata: ${answer}\n\n`, true],
      [`id: e1\ndata: ${answer}\n\n`, true],
      [`retry: 10\ndata: ${answer}\n\n`, true],
      [`data: {oops\n\n`, true],
      [`data: ${answer}\n\n`, false],
    ] as const) {
      const { response } = await fetchSse(body, declared);
      assert.equal(response.headers.get('content-type'), 'text/event-stream', body);
      assert.equal(await new Response(response.body).text(), body, 'the same bytes');
    }
  });

  it('still fails a call whose whole SSE answer answers another request', async () => {
    const other = answer.replace('"id":7', '"id":8');
    const { response, problems } = await fetchSse(`data: ${other}\n\n`);
    await new Response(response.body).text();
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? '', /ended without an answer to the request/);
  });
});

describe('soleMessageData', () => {
  it('finds the data of a body that is one message event, by the SSE rules', () => {
    assert.equal(soleMessageData('event: message\ndata: {"a":1}\n\n'), '{"a":1}');
    assert.equal(soleMessageData(': comment\r\ndata:{"a":\r\ndata: 1}\r\n\r\n'), '{"a":\n1}');
    assert.equal(soleMessageData('data: x\n'), undefined, 'an event cut before its blank line is dropped');
    assert.equal(soleMessageData('event: other\ndata: x\n\n'), undefined);
    assert.equal(soleMessageData('data: x\n\ndata: y\n\n'), undefined);
    assert.equal(soleMessageData('data:\n\n'), undefined, 'an event with empty data is not dispatched');
  });
});
