import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { A2ATransport } from '../../src/a2a/index.js';
import { AdcpWireError } from '../../src/core/wire-error.js';
import type { ProgressEvent } from '../../src/transport/transport.js';
import { startRawServer, sendJson, v1Card, v1Task, type RawServer, type RawRequest } from './raw-server.js';

const MAX = 64 * 1024;

function sse(res: ServerResponse): (value: unknown) => boolean {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  return (value) => res.write(`data: ${typeof value === 'string' ? value : JSON.stringify(value)}\n\n`);
}

/** Each path under /v1/<name> answers as the named hostile or broken seller. */
const behaviours: Record<string, (req: RawRequest, res: ServerResponse) => void | Promise<void>> = {
  endless: async (req, res) => {
    const write = sse(res);
    let closed = false;
    res.on('close', () => (closed = true));
    write({
      jsonrpc: '2.0',
      id: req.body?.id,
      result: { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
    });
    const event = {
      jsonrpc: '2.0',
      id: req.body?.id,
      result: {
        statusUpdate: {
          taskId: 't',
          contextId: 'c',
          status: { state: 'TASK_STATE_WORKING', message: { parts: [{ text: 'x'.repeat(1000) }] } },
        },
      },
    };
    for (let i = 0; i < 5000 && !closed; i++) {
      if (!write(event)) await new Promise((r) => setTimeout(r, 1));
    }
    endlessWritten = closed ? 'client closed' : 'server gave up';
    res.end();
  },
  huge: (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ jsonrpc: '2.0', id: req.body?.id, result: { task: v1Task({ blob: 'y'.repeat(hugeSize) }) } }),
    );
  },
  nested: (req, res) => {
    const write = sse(res);
    write({ jsonrpc: '2.0', id: req.body?.id, result: { task: { task: v1Task({ smuggled: true }) } } });
    res.end();
  },
  'not-json': (_req, res) => sendJson(res, '<html>oops</html>'),
  'gzip-bomb': (req, res) => {
    const body = gzipSync(
      JSON.stringify({ jsonrpc: '2.0', id: req.body?.id, result: { task: v1Task({ blob: 'a'.repeat(2_000_000) }) } }),
    );
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'content-length': String(body.length),
    });
    res.end(body);
  },
  'duplicate-keys': (req, res) =>
    sendJson(
      res,
      `{"jsonrpc":"2.0","id":${JSON.stringify(req.body?.id)},"result":{"task":{"id":"t","id":"u","status":{"state":"TASK_STATE_COMPLETED"}}}}`,
    ),
  unavailable: (_req, res) => sendJson(res, { error: 'down' }, 503),
  redirect: (_req, res) => {
    res.writeHead(307, { location: 'https://elsewhere.example/rpc' });
    res.end();
  },
  message: (req, res) =>
    sendJson(res, {
      jsonrpc: '2.0',
      id: req.body?.id,
      result: { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } },
    }),
  'rate-limited': (req, res) =>
    sendJson(res, {
      jsonrpc: '2.0',
      id: req.body?.id,
      error: {
        code: -32029,
        message: 'Rate limit exceeded',
        data: { adcp_error: { code: 'RATE_LIMITED', retry_after: 7.2, recovery: 'transient' } },
      },
    }),
  'unknown-state': (req, res) =>
    sendJson(res, {
      jsonrpc: '2.0',
      id: req.body?.id,
      result: { task: v1Task({ x: 1 }, 't', 'TASK_STATE_PAUSED\r\nINJECTED') },
    }),
  'wrong-id': (_req, res) => sendJson(res, { jsonrpc: '2.0', id: 'someone-else', result: { task: v1Task({}) } }),
  slow: () => undefined, // never answers
  stall: (req, res) => {
    const write = sse(res);
    write({
      jsonrpc: '2.0',
      id: req.body?.id,
      result: { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
    });
    // then nothing: the stream stays open until the client gives up
  },
  'no-status': (req, res) => {
    const write = sse(res);
    write({
      jsonrpc: '2.0',
      id: req.body?.id,
      result: { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } },
    });
    res.end();
  },
  chunks: (req, res) => {
    const write = sse(res);
    const id = req.body?.id;
    write({
      jsonrpc: '2.0',
      id,
      result: { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } } },
    });
    write({
      jsonrpc: '2.0',
      id,
      result: {
        artifactUpdate: {
          taskId: 't',
          contextId: 'c',
          artifact: { artifactId: 'a', parts: [{ text: 'Found' }, { data: { progress: 10 } }] },
        },
      },
    });
    write({
      jsonrpc: '2.0',
      id,
      result: {
        artifactUpdate: {
          taskId: 't',
          contextId: 'c',
          append: true,
          lastChunk: true,
          artifact: { artifactId: 'a', parts: [{ data: { status: 'completed', total: 2 } }] },
        },
      },
    });
    write({
      jsonrpc: '2.0',
      id,
      result: {
        artifactUpdate: {
          taskId: 'other-task',
          contextId: 'c',
          artifact: { artifactId: 'a', parts: [{ data: { injected: true } }] },
        },
      },
    });
    write({
      jsonrpc: '2.0',
      id,
      result: { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } },
    });
    res.end();
  },
  'file-parts': (req, res) =>
    sendJson(res, {
      jsonrpc: '2.0',
      id: req.body?.id,
      result: {
        task: {
          id: 't',
          status: { state: 'TASK_STATE_COMPLETED' },
          artifacts: [
            {
              artifactId: 'a',
              parts: [
                { data: { creative_id: 'cr' } },
                { url: 'https://evil.example/x.mp4', filename: 'x\nmp4' },
                { url: 'javascript:alert(1)' },
                { raw: 'AAAA', mediaType: 'image/png' },
              ],
            },
          ],
        },
      },
    }),
};
let endlessWritten = '';
let hugeSize = 200 * 1024;

describe('A2ATransport against hostile or broken sellers', () => {
  let raw: RawServer;
  before(async () => {
    raw = await startRawServer((req, res, base) => {
      const name = req.path.split('/')[1] ?? '';
      if (req.method === 'GET')
        return req.path.endsWith('/.well-known/agent-card.json')
          ? sendJson(res, v1Card(base, `/${name}/rpc`))
          : sendJson(res, {}, 404);
      const handle = behaviours[name];
      if (handle === undefined) return sendJson(res, {}, 404);
      return handle(req, res);
    });
  });
  after(() => raw.close());

  const transport = (name: string) => new A2ATransport({ url: `${raw.base}/${name}`, maxBytes: MAX });
  const rejectsWith = (promise: Promise<unknown>, code: string, message?: RegExp) =>
    assert.rejects(promise, (e: unknown) => {
      assert.ok(e instanceof AdcpWireError, `not an AdcpWireError: ${String(e)}`);
      assert.equal(e.code, code);
      if (message !== undefined) assert.match(e.message, message);
      return true;
    });

  it('stops reading an oversized stream at the byte cap and closes the connection', async () => {
    const events: ProgressEvent[] = [];
    await rejectsWith(
      transport('endless').callTool('get_products', {}, { maxBytes: MAX, onProgress: (e) => events.push(e) }),
      'response_too_large',
      /over 65536 bytes/,
    );
    assert.ok(events.length > 0 && events.length < 70, `saw ${events.length} events`);
    for (let i = 0; i < 200 && endlessWritten === ''; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(endlessWritten, 'client closed');
  });

  it('refuses an oversized JSON answer', async () => {
    await rejectsWith(transport('huge').callTool('get_products', {}, { maxBytes: MAX }), 'response_too_large');
  });

  it('counts decompressed bytes: a small gzip body that inflates past the cap is refused', async () => {
    await rejectsWith(transport('gzip-bomb').callTool('get_products', {}, { maxBytes: MAX }), 'response_too_large');
  });

  it('refuses a DataPart over 1 MiB even under a larger response cap', async () => {
    const t = new A2ATransport({ url: `${raw.base}/huge`, maxBytes: 8 * 1024 * 1024 });
    hugeSize = 1_200_000;
    try {
      await rejectsWith(
        t.callTool('get_products', {}, { maxBytes: 8 * 1024 * 1024 }),
        'response_too_large',
        /DataPart/,
      );
    } finally {
      hugeSize = 200 * 1024;
    }
  });

  it('refuses a nested stream envelope as a protocol error', async () => {
    await rejectsWith(
      transport('nested').callTool('get_products', {}, { maxBytes: MAX, onProgress: () => {} }),
      'protocol',
      /nested stream envelope/,
    );
  });

  it('refuses an answer that is not JSON', async () => {
    await rejectsWith(
      transport('not-json').callTool('get_products', {}, { maxBytes: MAX }),
      'protocol',
      /not valid JSON/,
    );
  });

  it('refuses an answer with duplicate object keys', async () => {
    await rejectsWith(
      transport('duplicate-keys').callTool('get_products', {}, { maxBytes: MAX }),
      'protocol',
      /duplicate_key/,
    );
  });

  it('reports HTTP 503 as a retryable http_status error', async () => {
    await assert.rejects(transport('unavailable').callTool('get_products', {}, { maxBytes: MAX }), (e: unknown) => {
      assert.ok(e instanceof AdcpWireError);
      assert.equal(e.code, 'http_status');
      assert.equal(e.status, 503);
      assert.equal(e.retryable, true);
      return true;
    });
  });

  it('does not follow a redirect of a JSON-RPC request', async () => {
    await assert.rejects(
      transport('redirect').callTool('get_products', {}, { maxBytes: MAX }),
      (e: unknown) => e instanceof AdcpWireError && e.code === 'http_status' && e.status === 307,
    );
  });

  it('refuses a { message } SendMessage answer of a profiled agent, naming the rule', async () => {
    await assert.rejects(transport('message').callTool('get_products', {}, { maxBytes: MAX }), (e: unknown) => {
      assert.ok(e instanceof AdcpWireError);
      assert.equal(e.code, 'profile_violation');
      assert.equal(e.rule, 'invalid_send_message_response');
      assert.match(e.message, /task branch/);
      return true;
    });
  });

  it('turns a JSON-RPC error carrying adcp_error into a failed result', async () => {
    const result = await transport('rate-limited').callTool('get_products', {}, { maxBytes: MAX });
    assert.equal(result.status, 'failed');
    if (result.status !== 'failed') return;
    assert.equal(result.error.code, 'RATE_LIMITED');
    assert.equal(result.error.action, 'retry');
    assert.equal(result.error.retryDelaySeconds, 8);
  });

  it('returns an unknown task state as a visible result, sanitised', async () => {
    const result = await transport('unknown-state').callTool('get_products', {}, { maxBytes: MAX });
    assert.equal(result.status, 'working');
    assert.equal(result.message, 'unknown A2A task state "TASK_STATE_PAUSED INJECTED"');
    assert.equal(result.data, undefined);
  });

  it('refuses an answer to another request id', async () => {
    await rejectsWith(
      transport('wrong-id').callTool('get_products', {}, { maxBytes: MAX }),
      'protocol',
      /another request id/,
    );
  });

  it('honours an AbortSignal', async () => {
    const controller = new AbortController();
    const pending = transport('slow').callTool('get_products', {}, { maxBytes: MAX, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await rejectsWith(pending, 'aborted');
  });

  it('reports a timeout signal as timeout', async () => {
    await rejectsWith(
      transport('slow').callTool('get_products', {}, { maxBytes: MAX, signal: AbortSignal.timeout(30) }),
      'timeout',
    );
  });

  it('reports an abort in the middle of a stream as aborted', async () => {
    const controller = new AbortController();
    const events: ProgressEvent[] = [];
    const pending = transport('stall').callTool(
      'get_products',
      {},
      {
        maxBytes: MAX,
        signal: controller.signal,
        onProgress: (e) => {
          events.push(e);
          controller.abort();
        },
      },
    );
    await rejectsWith(pending, 'aborted');
    assert.deepEqual(
      events.map((e) => e.status),
      ['working'],
    );
  });

  it('ends a call in flight when the transport is closed, and refuses calls after', async () => {
    const t = transport('stall');
    const pending = t.callTool('get_products', {}, { maxBytes: MAX, onProgress: () => void t.close() });
    await rejectsWith(pending, 'aborted', /was closed/);
    await rejectsWith(t.getTask('t', { maxBytes: MAX }), 'aborted', /was closed/);
  });

  it("passes on the signal's own AdcpWireError reason (the client's deadline)", async () => {
    const controller = new AbortController();
    const deadline = new AdcpWireError('timeout', 'call did not finish within 20 ms');
    setTimeout(() => controller.abort(deadline), 20);
    await assert.rejects(
      transport('slow').callTool('get_products', {}, { maxBytes: MAX, signal: controller.signal }),
      (e: unknown) => e === deadline,
    );
  });

  it('refuses a stream that ends without any task status', async () => {
    await rejectsWith(
      transport('no-status').callTool('get_products', {}, { maxBytes: MAX, onProgress: () => {} }),
      'protocol',
      /without a task status/,
    );
  });

  it('accumulates appended artifact chunks and ignores events of another task', async () => {
    const result = await transport('chunks').callTool('get_products', {}, { maxBytes: MAX, onProgress: () => {} });
    assert.equal(result.status, 'completed');
    assert.deepEqual(result.data, { status: 'completed', total: 2 });
    assert.equal(result.message, 'Found');
  });

  it('checks FileParts before showing them: hostile URLs refused, raw size-checked', async () => {
    const result = (await transport('file-parts').callTool('get_products', {}, { maxBytes: MAX })) as {
      files?: unknown;
    };
    assert.deepEqual(result.files, [
      { filename: 'x mp4', refused: 'host_not_allowed' },
      { refused: 'not_https' },
      { mediaType: 'image/png', rawBytes: 3 },
    ]);
  });
});
