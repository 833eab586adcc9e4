import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ClientFactory as ClientFactoryV03 } from 'a2a-sdk-v03/client';
import { ClientFactory as ClientFactoryV1 } from '@a2a-js/sdk/client';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { MemoryTaskStore } from '../../src/store/memory-task-store.js';
import { gate, testTools } from './fixtures.js';
import { ACTIVATED_CALL, ACTIVATED_HEADERS } from './profile-activation.js';

type Json = { [key: string]: unknown };

const v03Message = (skill: string, input: Json, contextId?: string) => ({
  message: {
    kind: 'message' as const,
    messageId: randomUUID(),
    role: 'user' as const,
    ...(contextId === undefined ? {} : { contextId }),
    parts: [
      { kind: 'text' as const, text: `AdCP task: ${skill}` },
      { kind: 'data' as const, data: { skill, input } },
    ],
  },
});

const v1Request = (skill: string, input: Json, configuration?: Json) =>
  ({
    tenant: '',
    message: {
      messageId: randomUUID(),
      contextId: '',
      taskId: '',
      role: 1,
      parts: [
        { content: { $case: 'data', value: { skill, input } }, metadata: undefined, filename: '', mediaType: '' },
      ],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration,
    metadata: undefined,
  }) as never;

describe('createAdcpServer over A2A', () => {
  const slow = gate();
  const server = createAdcpServer({ validateRequests: false, tools: testTools({ slow: slow.promise }) });
  let listening: ListeningAdcpServer;

  const rpc = async (method: string, params: Json, headers: Record<string, string> = {}) => {
    const response = await fetch(listening.a2aUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...ACTIVATED_HEADERS, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await response.json()) as Json;
  };

  before(async () => {
    listening = await server.listen();
  });
  after(async () => {
    slow.open();
    await server.close();
  });

  it('serves an agent card advertising 1.0 and v0.3 on the JSON-RPC endpoint', async () => {
    const card = (await (await fetch(`${listening.url}/.well-known/agent-card.json`)).json()) as Json;
    assert.deepEqual(card.supportedInterfaces, [
      { url: listening.a2aUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: listening.a2aUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: `${listening.url}/a2a/legacy`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    assert.equal(card.url, listening.a2aUrl);
    assert.equal(card.preferredTransport, 'JSONRPC');
    const skills = (card.skills as Json[]).map((s) => s.id);
    assert.ok(skills.includes('get_products') && skills.includes('get_task_status'));
    assert.equal(skills.includes('tasks/get'), false); // the transport's own method name on A2A
  });

  it('serves the same card under the A2A URL it prints, so the official clients connect with it', async () => {
    const atOrigin = await (await fetch(`${listening.url}/.well-known/agent-card.json`)).json();
    for (const path of ['/.well-known/agent-card.json', '/.well-known/agent.json']) {
      const res = await fetch(`${listening.a2aUrl}${path}`);
      assert.equal(res.status, 200, path);
      assert.deepEqual(await res.json(), atOrigin);
    }
    const v1 = await new ClientFactoryV1().createFromUrl(listening.a2aUrl);
    const reply = (await v1.sendMessage(
      v1Request('get_products', { brief: 'ctv' }),
      ACTIVATED_CALL,
    )) as unknown as Json;
    assert.equal((reply.status as Json).state, 3); // TASK_STATE_COMPLETED
    const v03 = await new ClientFactoryV03().createFromUrl(listening.a2aUrl);
    const old = (await v03.sendMessage(v03Message('get_products', { brief: 'ctv' }))) as unknown as Json;
    assert.equal((old.status as Json).state, 'completed');
  });

  it('answers the v0.3 client with one artifact: a TextPart then the final DataPart', async () => {
    const client = await new ClientFactoryV03().createFromUrl(listening.url);
    const result = (await client.sendMessage(
      v03Message('get_products', { brief: 'ctv', context: { k: 1 } }),
    )) as unknown as Json;
    assert.equal(result.kind, 'task');
    assert.equal((result.status as Json).state, 'completed');
    const artifacts = result.artifacts as Json[];
    assert.equal(artifacts.length, 1);
    const parts = artifacts[0]?.parts as Json[];
    assert.deepEqual(
      parts.map((p) => p.kind),
      ['text', 'data'],
    );
    const data = parts[1]?.data as Json;
    assert.equal(data.status, 'completed');
    assert.deepEqual(data.context, { k: 1 });
    assert.equal((data.products as Json[]).length, 1);
  });

  it('answers the 1.x client on the 1.0 wire with a completed task and the data part', async () => {
    const client = await new ClientFactoryV1().createFromUrl(listening.url);
    const result = (await client.sendMessage(
      v1Request('get_products', { brief: 'ctv' }),
      ACTIVATED_CALL,
    )) as unknown as Json;
    assert.equal((result.status as Json).state, 3); // TASK_STATE_COMPLETED
    const parts = (result.artifacts as Json[])[0]?.parts as { content: { $case: string; value: Json } }[];
    assert.deepEqual(
      parts.map((p) => p.content.$case),
      ['text', 'data'],
    );
    assert.equal(parts[1]?.content.value.status, 'completed');
  });

  it('puts a 1.0 SendMessage answer in a { task } envelope with ProtoJSON states and kind-less parts', async () => {
    const reply = await rpc(
      'SendMessage',
      {
        message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ data: { skill: 'get_products', input: {} } }] },
      },
      { 'a2a-version': '1.0' },
    );
    const task = (reply.result as Json).task as Json;
    assert.equal((task.status as Json).state, 'TASK_STATE_COMPLETED');
    const parts = (task.artifacts as Json[])[0]?.parts as Json[];
    assert.equal(
      parts.some((p) => 'kind' in p),
      false,
    );
    assert.equal(typeof (parts[0] as Json).text, 'string');
    assert.equal(task.kind, undefined);
  });

  it('accepts every schema-admitted envelope field in the skill input and echoes context and adcp_version', async () => {
    const input = {
      brief: 'ctv',
      idempotency_key: '550e8400-e29b-41d4-a716-446655442072',
      context: { trace: 't' },
      context_id: 'ctx-compat',
      adcp_version: '3.1',
      adcp_major_version: 3,
      push_notification_config: { url: 'https://buyer.example/hook', operation_id: 'op' },
      governance_context: { plan_id: 'p' },
      ext: { vendor: {} },
    };
    const reply = await rpc('message/send', v03Message('get_products', input));
    const task = reply.result as Json;
    const data = ((task.artifacts as Json[])[0]!.parts as Json[])[1]?.data as Json;
    assert.equal((task.status as Json).state, 'completed');
    assert.deepEqual(data.context, { trace: 't' });
    assert.equal(data.adcp_version, '3.1');
  });

  it('answers a failed task with an adcp_error DataPart', async () => {
    const reply = await rpc('message/send', v03Message('fail_rate_limited', {}));
    const task = reply.result as Json;
    assert.equal((task.status as Json).state, 'failed');
    const parts = (task.artifacts as Json[])[0]?.parts as Json[];
    const data = parts[parts.length - 1]?.data as Json;
    assert.deepEqual(data.adcp_error, {
      code: 'RATE_LIMITED',
      message: 'Request rate exceeded',
      recovery: 'transient',
      retry_after: 3,
    });
  });

  it('carries an AdCP submitted answer inside a completed A2A task', async () => {
    const reply = await rpc('message/send', v03Message('create_media_buy', { idempotency_key: randomUUID() }));
    const task = reply.result as Json;
    assert.equal((task.status as Json).state, 'completed');
    const data = ((task.artifacts as Json[])[0]!.parts as Json[])[1]?.data as Json;
    assert.equal(data.status, 'submitted');
    assert.equal(typeof data.task_id, 'string');
    assert.notEqual(data.task_id, task.id);
  });

  it('refuses a message without exactly one invocation DataPart with invalid params', async () => {
    const reply = await rpc('message/send', {
      message: { kind: 'message', messageId: 'x', role: 'user', parts: [{ kind: 'text', text: 'buy stuff' }] },
    });
    assert.equal((reply.error as Json).code, -32602);
  });

  it('refuses an unknown method with method not found', async () => {
    const reply = await rpc('tasks/frobnicate', {});
    assert.equal((reply.error as Json).code, -32601);
  });

  it('returns at once with returnImmediately and serves GetTask and CancelTask on 1.0', async () => {
    const reply = await rpc('SendMessage', {
      message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ data: { skill: 'sync_creatives', input: {} } }] },
      configuration: { returnImmediately: true },
    });
    const task = (reply.result as Json).task as Json;
    assert.equal((task.status as Json).state, 'TASK_STATE_WORKING');
    const got = await rpc('GetTask', { id: task.id });
    assert.equal(((got.result as Json).status as Json).state, 'TASK_STATE_WORKING');
    const cancelled = await rpc('CancelTask', { id: task.id });
    assert.equal(((cancelled.result as Json).status as Json).state, 'TASK_STATE_CANCELED');
  });

  it('streams the final task to the v0.3 client', async () => {
    const client = await new ClientFactoryV03().createFromUrl(listening.url);
    const events: Json[] = [];
    for await (const event of client.sendMessageStream(v03Message('get_products', {}))) {
      events.push(event as unknown as Json);
      if (events.length > 10) break;
    }
    const last = events[events.length - 1] as Json;
    assert.equal((last.status as Json).state, 'completed');
  });

  it('streams a { task } envelope then updates to the 1.x client on the 1.0 wire', async () => {
    const client = await new ClientFactoryV1().createFromUrl(listening.url);
    const events: Json[] = [];
    for await (const event of client.sendMessageStream(v1Request('get_products', {}), ACTIVATED_CALL)) {
      events.push(event as unknown as Json);
      if (events.length > 10) break;
    }
    const payloads = events.map((e) => (e as { payload?: { $case: string; value: Json } }).payload);
    assert.equal(payloads[0]?.$case, 'task');
    const last = payloads[payloads.length - 1];
    assert.equal(last?.$case, 'statusUpdate');
    assert.equal((last?.value.status as Json | undefined)?.state, 3);
  });

  it('rate-limits durable (non-blocking) task creation per principal but not blocking sends', async () => {
    const limited = createAdcpServer({
      validateRequests: false,
      tools: testTools(),
      store: new MemoryTaskStore({ policy: { rateLimit: { max: 2, windowMs: 60_000 } } }),
    });
    const l = await limited.listen();
    try {
      const send = async (configuration: Json) =>
        (await (
          await fetch(l.a2aUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'message/send',
              params: { ...v03Message('get_products', {}), configuration },
            }),
          })
        ).json()) as Json;
      const blocking: Json[] = [];
      for (let i = 0; i < 4; i += 1) blocking.push(await send({}));
      assert.deepEqual(
        blocking.map((r) => ((r.result as Json).status as Json).state),
        ['completed', 'completed', 'completed', 'completed'],
      );
      const async1 = await send({ blocking: false });
      const async2 = await send({ blocking: false });
      const async3 = await send({ blocking: false });
      assert.equal(async1.error, undefined);
      assert.equal(async2.error, undefined);
      assert.equal((async3.error as Json).code, -32029);
      assert.equal((((async3.error as Json).data as Json).adcp_error as Json).code, 'RATE_LIMITED');
    } finally {
      await limited.close();
    }
  });

  it('does not let another principal read a task', async () => {
    const authed = createAdcpServer({
      validateRequests: false,
      tools: testTools(),
      authenticate: (req) => (typeof req.headers.authorization === 'string' ? req.headers.authorization : null),
    });
    const l = await authed.listen();
    try {
      const call = async (auth: string, method: string, params: Json) =>
        (await (
          await fetch(l.a2aUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: auth },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
          })
        ).json()) as Json;
      const sent = await call('Bearer a', 'message/send', v03Message('get_products', {}));
      const id = (sent.result as Json).id;
      const mine = await call('Bearer a', 'tasks/get', { id });
      const theirs = await call('Bearer b', 'tasks/get', { id });
      assert.equal((mine.result as Json).id, id);
      assert.equal((theirs.error as Json).code, -32001);
    } finally {
      await authed.close();
    }
  });
});
