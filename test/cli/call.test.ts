import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCall } from '../../src/cli/call.js';
import type { CliClient } from '../../src/cli/open-client.js';
import type { Connection } from '../../src/cli/connection-flags.js';
import type { TaskResult } from '../../src/core/task-result.js';
import type { JsonObject } from '../../src/core/types.js';
import { AdcpWireError } from '../../src/core/wire-error.js';
import { recordingIo } from './fake-io.js';

interface Seen {
  connection?: Connection;
  tool?: string;
  args?: JsonObject;
  task?: unknown;
  waited: number;
  closed: boolean;
}

/** A stand-in client: answers `first`, then `final` from waitFor after two progress events. */
function fakeClient(first: TaskResult | Error, final?: TaskResult | Error) {
  const seen: Seen = { waited: 0, closed: false };
  const open = async (connection: Connection): Promise<CliClient> => {
    seen.connection = connection;
    return {
      async call(tool, args, options) {
        seen.tool = tool;
        seen.args = args;
        seen.task = options?.task;
        if (first instanceof Error) throw first;
        return first;
      },
      async waitFor(_result, options) {
        seen.waited++;
        options?.onProgress?.({ lifecycle: 'adcp', status: 'working', taskId: 't1', percentage: 40 });
        options?.onProgress?.({ lifecycle: 'adcp', status: 'working', taskId: 't1', percentage: 80 });
        if (final instanceof Error) throw final;
        return final ?? (first as TaskResult);
      },
      async discover() {
        throw new Error('not used');
      },
      async close() {
        seen.closed = true;
      },
    };
  };
  return { open, seen };
}

const completed = (data: JsonObject, message?: string): TaskResult => ({
  status: 'completed',
  protocol: 'mcp',
  data,
  raw: {},
  ...(message === undefined ? {} : { message }),
});
const submitted: TaskResult = { status: 'submitted', protocol: 'mcp', taskId: 't1', data: { task_id: 't1' }, raw: {} };

describe('adcp call', () => {
  it('prints the answer and exits 0 when the agent completed', async () => {
    const { open, seen } = fakeClient(completed({ products: [{ product_id: 'p1' }] }));
    const io = recordingIo();
    const code = await runCall(['http://127.0.0.1:1/mcp', 'get_products', '{"brief":"coffee"}'], io, open);
    assert.equal(code, 0);
    assert.equal(seen.tool, 'get_products');
    assert.deepEqual(seen.args, { brief: 'coffee' });
    assert.match(io.out(), /^completed  get_products via mcp/);
    assert.match(io.out(), /"product_id": "p1"/);
    assert.equal(seen.closed, true);
  });

  it('writes one JSON object with --json', async () => {
    const { open } = fakeClient(completed({ ok: true }));
    const io = recordingIo();
    assert.equal(await runCall(['http://127.0.0.1:1/mcp', 'get_products', '--json'], io, open), 0);
    assert.deepEqual(JSON.parse(io.out()), { status: 'completed', protocol: 'mcp', data: { ok: true } });
  });

  it('never prints seller control characters', async () => {
    const { open } = fakeClient(completed({ note: 'x\u001b[2J' }, 'hi\u001b]0;pwned\u0007\r\nthere'));
    const io = recordingIo();
    await runCall(['http://127.0.0.1:1/mcp', 'get_products'], io, open);
    assert.equal(io.out().includes('\u001b'), false);
    assert.match(io.out(), /message +hi\]0;pwned there/);
  });

  it('exits 1 with the recovery advice when the agent failed', async () => {
    const failed: TaskResult = {
      status: 'failed',
      protocol: 'a2a',
      data: undefined,
      raw: {},
      error: {
        adcpError: { code: 'RATE_LIMITED', message: 'slow down' },
        code: 'RATE_LIMITED',
        recovery: 'transient',
        action: 'retry',
        retryDelaySeconds: 5,
      },
    };
    const io = recordingIo();
    assert.equal(await runCall(['http://127.0.0.1:1/a2a', 'get_products'], io, fakeClient(failed).open), 1);
    assert.match(io.out(), /error +RATE_LIMITED: slow down/);
    assert.match(io.out(), /what next +retry in 5 s/);
  });

  it('exits 0 for submitted work without --wait and says how to follow it', async () => {
    const { open, seen } = fakeClient(submitted);
    const io = recordingIo();
    assert.equal(await runCall(['http://127.0.0.1:1/mcp', 'create_media_buy', '{}'], io, open), 0);
    assert.equal(seen.waited, 0);
    assert.match(io.out(), /adcp tasks get http:\/\/127\.0\.0\.1:1\/mcp t1/);
  });

  it('follows submitted work with --wait and a live progress line on a terminal', async () => {
    const { open, seen } = fakeClient(submitted, completed({ media_buy_id: 'mb1' }));
    const io = recordingIo({ tty: true, env: { NO_COLOR: '1' } });
    assert.equal(await runCall(['http://127.0.0.1:1/mcp', 'create_media_buy', '{}', '--wait'], io, open), 0);
    assert.equal(seen.waited, 1);
    // oxlint-disable-next-line no-control-regex -- the progress line is redrawn with CR and an ANSI erase
    assert.match(io.err(), /\r\u001b\[2K… AdCP task working  task t1  80%/);
    assert.ok(io.err().endsWith('\r\u001b[2K'));
    assert.match(io.out(), /"media_buy_id": "mb1"/);
  });

  it('exits 4 when --wait runs out of time', async () => {
    const { open } = fakeClient(submitted, new AdcpWireError('timeout', 'waited too long'));
    const io = recordingIo();
    assert.equal(
      await runCall(['http://127.0.0.1:1/mcp', 'create_media_buy', '{}', '--wait', '--timeout', '1'], io, open),
      4,
    );
    assert.match(io.err(), /did not finish within --timeout/);
  });

  it('exits 3, not 4, when the call itself times out before any waiting', async () => {
    const { open } = fakeClient(new AdcpWireError('timeout', 'no answer'));
    const io = recordingIo();
    assert.equal(await runCall(['http://127.0.0.1:1/mcp', 'create_media_buy', '{}', '--wait'], io, open), 3);
    assert.match(io.err(), /\[timeout\]\n  the agent did not answer in time/);
  });

  it('sets push_notification_config from --webhook and --webhook-secret', async () => {
    const { open, seen } = fakeClient(submitted);
    const argv = [
      'http://127.0.0.1:1/mcp',
      'create_media_buy',
      '{"a":1}',
      '--webhook',
      'http://127.0.0.1:9/hook',
      '--webhook-secret',
      's3cret',
    ];
    await runCall(argv, recordingIo(), open);
    assert.deepEqual(seen.args, {
      a: 1,
      push_notification_config: {
        url: 'http://127.0.0.1:9/hook',
        authentication: { schemes: ['HMAC-SHA256'], credentials: 's3cret' },
      },
    });
  });

  it('passes headers, the bearer token and the protocol to the client', async () => {
    const { open, seen } = fakeClient(completed({}));
    const argv = [
      'http://127.0.0.1:1/mcp',
      'get_products',
      '--protocol',
      'a2a',
      '--header',
      'X-Trace: 7',
      '--auth',
      'tok',
      '--timeout',
      '2',
    ];
    await runCall(argv, recordingIo(), open);
    assert.deepEqual(seen.connection, {
      url: 'http://127.0.0.1:1/mcp',
      protocol: 'a2a',
      headers: { 'x-trace': '7' },
      auth: 'tok',
      timeoutMs: 2000,
    });
  });

  it('asks for an MCP Task with --task', async () => {
    const { open, seen } = fakeClient(completed({}));
    await runCall(['http://127.0.0.1:1/mcp', 'get_products', '--task'], recordingIo(), open);
    assert.deepEqual(seen.task, {});
  });

  it('exits 3 with the next step when the agent cannot be reached', async () => {
    const { open } = fakeClient(new AdcpWireError('network', 'connect ECONNREFUSED 127.0.0.1:1'));
    const io = recordingIo();
    assert.equal(await runCall(['http://127.0.0.1:1/mcp', 'get_products'], io, open), 3);
    assert.match(io.err(), /\[network\]\n  check the URL and that the agent is running/);
  });

  it('exits 2 for a bad --protocol, a bad URL, a bad header or bad JSON, before connecting', async () => {
    const { open, seen } = fakeClient(completed({}));
    for (const argv of [
      ['http://127.0.0.1:1/mcp', 'get_products', '--protocol', 'grpc'],
      ['not a url', 'get_products'],
      ['ftp://127.0.0.1/', 'get_products'],
      ['http://127.0.0.1:1/mcp', 'get_products', '--header', 'no-colon'],
      ['http://127.0.0.1:1/mcp', 'get_products', '{oops'],
      ['http://127.0.0.1:1/mcp', 'get products'],
      ['http://127.0.0.1:1/mcp', 'get_products', '--webhook-secret', 'x'],
    ]) {
      const io = recordingIo();
      assert.equal(await runCall(argv, io, open), 2, argv.join(' '));
      assert.match(io.err(), /Run 'adcp call --help'/);
    }
    assert.equal(seen.connection, undefined);
  });
});
