// An A2A resubscribe served by an instance that does not run the task follows the shared store
// (src/server/a2a/a2a-follow-store.ts). Two servers on one task store stand for two instances of a
// fleet: the task runs on the first, the resubscribe is served by the second. When the client
// goes away, the second stops reading the store (it used to poll until the request timeout).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { MemoryTaskStore } from '../../src/store/memory-task-store.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { gate, readFirstSseFrame, testTools } from './fixtures.js';
import { ACTIVATED_HEADERS } from './profile-activation.js';

type Json = { [key: string]: unknown };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The same store, counting the task reads made through this handle. */
function countingReads(store: TaskStore): { store: TaskStore; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property === 'get') {
        return (...args: Parameters<TaskStore['get']>) => {
          reads += 1;
          return target.get(...args);
        };
      }
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: counted, reads: () => reads };
}

describe('A2A resubscribe following a task that runs on another instance', () => {
  const held = gate();
  const shared = new MemoryTaskStore();
  const follower = countingReads(shared);
  const tools = testTools({ slow: held.promise });
  // A long request timeout: the follower would otherwise stop on its own after it.
  const runner = createAdcpServer({ validateRequests: false, tools, store: shared, requestTimeoutMs: 120_000 });
  const other = createAdcpServer({ validateRequests: false, tools, store: follower.store, requestTimeoutMs: 120_000 });
  let running: ListeningAdcpServer;
  let following: ListeningAdcpServer;

  const post = (url: string, method: string, params: Json, signal?: AbortSignal) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...ACTIVATED_HEADERS },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: signal ?? null,
    });

  before(async () => {
    running = await runner.listen();
    following = await other.listen();
  });
  after(async () => {
    held.open();
    await runner.close();
    await other.close();
  });

  it('stops reading the store when the client disconnects', async () => {
    const sent = (await (
      await post(running.a2aUrl, 'message/send', {
        message: {
          kind: 'message',
          messageId: 'follow-1',
          role: 'user',
          parts: [{ kind: 'data', data: { skill: 'sync_creatives', input: {} } }],
        },
        configuration: { blocking: false },
      })
    ).json()) as Json;
    const task = sent.result as Json;
    assert.equal((task.status as Json).state, 'working', JSON.stringify(sent));

    const client = new AbortController();
    const response = await post(following.a2aUrl, 'tasks/resubscribe', { id: task.id }, client.signal);
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    const { reader, text } = await readFirstSseFrame(response);
    assert.match(text, /"state":"working"/, 'the stream opened with the working task');
    // The follower reads the store every 0.5 s while the task works.
    const opened = follower.reads();
    for (let i = 0; i < 60 && follower.reads() < opened + 2; i += 1) await sleep(50);
    assert.ok(follower.reads() >= opened + 2, `the follower polls the store (${follower.reads() - opened} reads)`);

    client.abort();
    await reader.cancel().catch(() => undefined);
    await sleep(700); // a read already under way may finish
    const gone = follower.reads();
    await sleep(1_600);
    assert.equal(follower.reads() - gone, 0, 'no store reads after the client went away');
  });
});
