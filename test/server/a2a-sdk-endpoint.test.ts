import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { MemoryTaskStore } from '../../src/store/memory-task-store.js';
import { gate, readFirstSseFrame, testTools } from './fixtures.js';
import { ACTIVATED_HEADERS } from './profile-activation.js';

type Json = { [key: string]: unknown };

const message = (skill: string, extra: Json = {}) => ({
  kind: 'message',
  messageId: `m-${Math.random()}`,
  role: 'user',
  parts: [{ kind: 'data', data: { skill, input: {} } }],
  ...extra,
});

/** The `data:` payloads of an SSE body, parsed. */
const sseEvents = (text: string): Json[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Json);

describe('the A2A endpoint on @a2a-js/sdk', () => {
  const slow = gate();
  const store = new MemoryTaskStore();
  const server = createAdcpServer({ validateRequests: false, tools: testTools({ slow: slow.promise }), store });
  let listening: ListeningAdcpServer;

  const post = (method: string, params: Json, headers: Record<string, string> = {}) =>
    fetch(listening.a2aUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...ACTIVATED_HEADERS, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
    });
  const rpc = async (method: string, params: Json) => (await (await post(method, params)).json()) as Json;

  before(async () => {
    listening = await server.listen();
  });
  after(async () => {
    slow.open();
    await server.close();
  });

  it('streams a failed invocation as the working Task, the adcp-error artifact, then the failed status on 1.0', async () => {
    const response = await post('SendStreamingMessage', {
      message: { messageId: 's1', role: 'ROLE_USER', parts: [{ data: { skill: 'fail_rate_limited', input: {} } }] },
    });
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    const events = sseEvents(await response.text()).map((e) => e.result as Json);
    assert.deepEqual(
      events.map((e) => Object.keys(e)),
      [['task'], ['artifactUpdate'], ['statusUpdate']],
    );
    assert.equal(((events[0]!.task as Json).status as Json).state, 'TASK_STATE_WORKING');
    const artifact = (events[1]!.artifactUpdate as Json).artifact as Json;
    assert.equal(artifact.artifactId, 'adcp-error');
    const parts = artifact.parts as Json[];
    assert.equal(typeof parts[0]?.text, 'string');
    assert.equal(((parts[1]!.data as Json).adcp_error as Json).code, 'RATE_LIMITED');
    assert.equal(((events[2]!.statusUpdate as Json).status as Json).state, 'TASK_STATE_FAILED');
  });

  it('keeps a streaming send durable: GetTask sees it working and CancelTask ends the stream canceled', async () => {
    const response = await post('message/stream', { message: message('sync_creatives') });
    // The first frame is the working Task; read until it is complete.
    const frame = await readFirstSseFrame(response);
    const reader = frame.reader;
    let text = frame.text;
    const first = sseEvents(text)[0]?.result as Json;
    assert.equal(first.kind, 'task');
    assert.equal((first.status as Json).state, 'working');
    const id = first.id as string;
    const stored = await store.get('principal:anonymous@127.0.0.1', id);
    assert.equal(stored?.status, 'working');
    const got = await rpc('tasks/get', { id });
    assert.equal(((got.result as Json).status as Json).state, 'working');
    const canceled = await rpc('tasks/cancel', { id });
    assert.equal(((canceled.result as Json).status as Json).state, 'canceled');
    for (let i = 0; i < 100; i += 1) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += chunk.value;
    }
    const events = sseEvents(text).map((e) => e.result as Json);
    const last = events[events.length - 1] as Json;
    assert.equal(last.kind, 'status-update');
    assert.equal(last.final, true);
    assert.equal((last.status as Json).state, 'canceled');
  });

  it('starts a new task for a message that names an existing taskId (AdCP tools are single-turn)', async () => {
    const first = await rpc('message/send', { message: message('get_products') });
    const firstId = (first.result as Json).id as string;
    const second = await rpc('message/send', { message: message('get_products', { taskId: firstId }) });
    assert.equal(second.error, undefined);
    assert.notEqual((second.result as Json).id, firstId);
    assert.equal(((second.result as Json).status as Json).state, 'completed');
  });

  // issue 30 (erratum, task continuation binding): a message.taskId is refused before handler entry
  // unless it names the caller's own task of the very operation the message resolves to.
  it('refuses a taskId continuation into a task of another operation, or into no task, before any handler', async () => {
    const first = await rpc('message/send', { message: message('get_products') });
    const firstId = (first.result as Json).id as string;
    for (const taskId of [firstId, 'no-such-task']) {
      const refused = await rpc('message/send', { message: message('explode', { taskId }) });
      assert.equal(refused.result, undefined);
      const error = refused.error as Json;
      assert.equal(((error.data as Json).adcp_error as Json).code, 'INVALID_REQUEST');
    }
  });

  it('blocks on a v0.3 send whose configuration omits blocking', async () => {
    const reply = await rpc('message/send', {
      message: message('get_products'),
      configuration: { acceptedOutputModes: ['application/json'] },
    });
    assert.equal(((reply.result as Json).status as Json).state, 'completed');
  });

  it('does not leak a handler exception into the task', async () => {
    const reply = await rpc('message/send', { message: message('explode') });
    const text = JSON.stringify(reply);
    assert.equal(text.includes('postgres://'), false);
    const parts = ((reply.result as Json).artifacts as Json[])[0]?.parts as Json[];
    assert.equal(((parts[1]!.data as Json).adcp_error as Json).code, 'SERVICE_UNAVAILABLE');
  });
});
