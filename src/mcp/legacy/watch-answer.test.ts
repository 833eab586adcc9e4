import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { capBody } from '../../transport/capped-body.js';
import { answersRequest, checkJsonAnswer, watchSseAnswer } from './watch-answer.js';

async function settles(chunks: string[], id = 3): Promise<boolean> {
  let unsettled = false;
  const encoder = new TextEncoder();
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  // As the capped fetch uses it: watched from capBody's pull, one stream.
  const watch = watchSseAnswer(id, () => (unsettled = true));
  const out = capBody(source, { maxBytes: 1 << 20, onOverflow: () => new RangeError('over'), watch });
  const text = await new Response(out).text();
  assert.equal(text, chunks.join(''), 'passes the bytes through unchanged');
  return !unsettled;
}

const ok = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result: {} });

describe('answersRequest', () => {
  it('matches a result or error with the id, an error with id null, and batches', () => {
    assert.equal(answersRequest({ jsonrpc: '2.0', id: 3, result: {} }, 3), true);
    assert.equal(answersRequest({ jsonrpc: '2.0', id: 3, error: { code: 1 } }, 3), true);
    assert.equal(answersRequest({ jsonrpc: '2.0', id: null, error: { code: 1 } }, 3), true);
    assert.equal(
      answersRequest(
        [
          { id: 9, result: {} },
          { id: 3, result: {} },
        ],
        3,
      ),
      true,
    );
    assert.equal(answersRequest({ jsonrpc: '2.0', id: '3', result: {} }, 3), false);
    assert.equal(answersRequest({ jsonrpc: '2.0', id: null, result: {} }, 3), false);
    assert.equal(answersRequest({ jsonrpc: '2.0', method: 'notifications/progress' }, 3), false);
  });
});

describe('checkJsonAnswer', () => {
  it('accepts the answer, leaves unreadable JSON to the SDK, refuses another id and id-less errors', () => {
    assert.equal(checkJsonAnswer(ok(3), 3).problem, undefined);
    assert.deepEqual(checkJsonAnswer(ok(3), 3).parsed, JSON.parse(ok(3)), 'hands on what it parsed');
    assert.deepEqual(checkJsonAnswer('{oops', 3), { parsed: undefined, problem: undefined });
    assert.match(checkJsonAnswer(ok(4), 3).problem ?? '', /another or no JSON-RPC id/);
    assert.match(
      checkJsonAnswer(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700 } }), 3).problem ?? '',
      /no request id/,
    );
  });
});

describe('watchSseAnswer', () => {
  it('settles on a message event answering the request, split anywhere, CRLF included', async () => {
    const body = `event: message\r\ndata: ${ok(3)}\r\n\r\n`;
    assert.equal(await settles([body]), true);
    assert.equal(await settles(body.split('')), true);
  });

  it('does not settle on a JSON body, another id, or a non-message event', async () => {
    assert.equal(await settles([ok(3)]), false);
    assert.equal(await settles([`data: ${ok(3)}`]), false, 'an event cut before its blank line is dropped');
    assert.equal(await settles([`data: ${ok(4)}\n\n`]), false);
    assert.equal(await settles([`event: other\ndata: ${ok(3)}\n\n`]), false);
    assert.equal(await settles([`data: ${ok(3).slice(0, 10)}\r`, `\ndata: x\n\n`]), false);
  });

  it('fails at once on an error with id null, which the SDK cannot route to the call', async () => {
    const problems: string[] = [];
    const encoder = new TextEncoder();
    let more!: ReadableStreamDefaultController<Uint8Array>;
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        more = controller;
        const error = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
        controller.enqueue(encoder.encode(`event: message\ndata: ${error}\n\n`));
      },
    });
    const watch = watchSseAnswer(3, (problem) => problems.push(problem));
    const reader = capBody(source, { maxBytes: 1 << 20, onOverflow: () => new RangeError('over'), watch }).getReader();
    await reader.read();
    // Said before the stream ends (a server may hold it open), and said once.
    assert.deepEqual(problems, ['is a JSON-RPC error with no request id']);
    more.close();
    await reader.read();
    assert.equal(problems.length, 1);
  });

  it('does not parse an answer the SDK has already delivered, and parses it once when the call is still open', async () => {
    const body = `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 3, result: { errors: [] } })}\n\n`;
    const parse = JSON.parse;
    let parsed = 0;
    JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      parsed++;
      return parse(text, reviver);
    }) as typeof JSON.parse;
    const run = async (settled: boolean): Promise<string[]> => {
      const problems: string[] = [];
      const watch = watchSseAnswer(
        3,
        (problem) => problems.push(problem),
        undefined,
        () => settled,
      );
      watch.chunk(new TextEncoder().encode(body));
      watch.end();
      return problems;
    };
    try {
      assert.deepEqual(await run(true), []);
      assert.equal(parsed, 0, 'the call settled: the SDK parsed the answer, the watcher does not');
      assert.deepEqual(await run(false), [], 'the call still open at the end: the answer is found');
      assert.equal(parsed, 1);
    } finally {
      JSON.parse = parse;
    }
  });

  it('keeps an error answer at once, its key written plainly or with a \\u escape', async () => {
    for (const key of ['"error"', '"\\u0065rror"']) {
      const problems: string[] = [];
      const kept: Record<string, unknown>[] = [];
      const watch = watchSseAnswer(
        3,
        (problem) => problems.push(problem),
        (error) => kept.push(error),
        () => false,
      );
      const idless = `{"jsonrpc":"2.0","id":null,${key}:{"code":-32700,"message":"Parse error"}}`;
      watch.chunk(new TextEncoder().encode(`data: {"jsonrpc":"2.0","id":3,${key}:{"code":-32000,"message":"no"}}\n\n`));
      assert.deepEqual(kept, [{ code: -32000, message: 'no' }], `kept before the stream ends (${key})`);
      const other = watchSseAnswer(
        3,
        (problem) => problems.push(problem),
        undefined,
        () => false,
      );
      other.chunk(new TextEncoder().encode(`data: ${idless}\n\n`));
      assert.deepEqual(problems, ['is a JSON-RPC error with no request id'], `said at once (${key})`);
    }
  });

  it('leaves a resumable stream (an event with an id) to the SDK', async () => {
    assert.equal(await settles(['id: e1\ndata:\n\n']), true);
    assert.equal(await settles(['id: e1\n\n']), false, 'an event without data is never dispatched');
  });
});
