// Interim progress on A2A streams served by createAdcpServer: the working Task, a `working` status
// update per ctx.working() report, the artifact, the terminal status; read raw on both wires, by
// both official SDK clients and by AdcpClient, and folded into exactly what GetTask returns.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ClientFactory as ClientFactoryV03 } from 'a2a-sdk-v03/client';
import { ClientFactory as ClientFactoryV1 } from '@a2a-js/sdk/client';
import { classifyEvent, TaskSnapshot } from '../../src/a2a/task-snapshot.js';
import { AdcpClient, type ProgressEvent } from '../../src/client/index.js';
import { taskResultFromA2A } from '../../src/core/task-result-from-a2a.js';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import type { AdcpToolDefinition } from '../../src/server/types.js';
import { progressUpdate } from '../../src/server/a2a/a2a-sdk-events.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { gate } from './fixtures.js';
import { ACTIVATED_CALL, ACTIVATED_HEADERS } from './profile-activation.js';

type Json = { [key: string]: unknown };

const PRODUCTS = [{ product_id: 'p1' }, { product_id: 'p2' }];

const held = gate();
const tools: AdcpToolDefinition[] = [
  {
    name: 'get_products',
    description: 'Products, reporting two steps.',
    handler: async (_args, ctx) => {
      await ctx.working('Reading the brief', { step: 'brief' });
      await ctx.working('Ranking products', { percentage: 50, step: 'ranking' });
      return { message: 'Found 2 products', products: PRODUCTS };
    },
  },
  {
    name: 'sync_creatives',
    description: 'Reports progress, then waits for the test.',
    mutating: false, // about progress, not keys
    handler: async (_args, ctx) => {
      await ctx.working('Validating assets', { percentage: 25, step: 'validate' });
      await held.promise;
      return { creatives: [] };
    },
  },
];

/** The `data:` payloads of an SSE body, parsed, each the JSON-RPC `result`. */
const sseResults = (text: string): Json[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => (JSON.parse(line.slice('data: '.length)) as Json).result as Json);

/** The fields a stream can fold into: a Task without its history. */
const withoutHistory = (task: Json): Json => ({
  id: task.id,
  contextId: task.contextId,
  status: task.status,
  artifacts: task.artifacts,
});

const v1Message = (skill: string) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ data: { skill, input: { buying_mode: 'brief', brief: 'ctv' } } }],
});
const v03Message = (skill: string) => ({
  kind: 'message' as const,
  messageId: randomUUID(),
  role: 'user' as const,
  parts: [{ kind: 'data' as const, data: { skill, input: { buying_mode: 'brief', brief: 'ctv' } } }],
});

describe('A2A streams from createAdcpServer carry interim progress', () => {
  const server = createAdcpServer({ validateRequests: false, tools });
  let listening: ListeningAdcpServer;

  const rpc = async (method: string, params: Json): Promise<Response> =>
    fetch(listening.a2aUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...ACTIVATED_HEADERS },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  const getTask = async (method: 'GetTask' | 'tasks/get', id: string): Promise<Json> => {
    const reply = (await (await rpc(method, { id })).json()) as Json;
    assert.equal(reply.error, undefined);
    return reply.result as Json;
  };

  before(async () => {
    listening = await server.listen();
  });
  after(async () => {
    held.open();
    await server.close();
  });

  it('sends task, two working updates, the artifact and the completed update on 1.0; the fold equals GetTask', async () => {
    const frames = sseResults(await (await rpc('SendStreamingMessage', { message: v1Message('get_products') })).text());
    assert.deepEqual(
      frames.map((f) => Object.keys(f)[0]),
      ['task', 'statusUpdate', 'statusUpdate', 'artifactUpdate', 'statusUpdate'],
    );
    const states = frames.map((f) => ((Object.values(f)[0] as Json).status as Json | undefined)?.state);
    assert.deepEqual(states, [
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      undefined,
      'TASK_STATE_COMPLETED',
    ]);
    const interim = ((frames[2]!.statusUpdate as Json).status as Json).message as Json;
    assert.equal(interim.role, 'ROLE_AGENT');
    assert.deepEqual(interim.parts, [
      { text: 'Ranking products' },
      { data: { percentage: 50, current_step: 'ranking' } },
    ]);
    const artifact = (frames[3]!.artifactUpdate as Json).artifact as Json;
    assert.deepEqual(artifact.parts, [
      { text: 'Found 2 products' },
      { data: { message: 'Found 2 products', products: PRODUCTS, status: 'completed', adcp_version: '3.1' } },
    ]);

    const snapshot = new TaskSnapshot();
    for (const frame of frames) snapshot.apply(classifyEvent(frame));
    const task = await getTask('GetTask', snapshot.id!);
    assert.deepEqual(snapshot.toTask(), withoutHistory(task));
    assert.deepEqual(task.artifacts, [artifact]);
    // History: the caller's message, then the agent's progress and final messages.
    assert.deepEqual(
      (task.history as Json[]).map((m) => m.role),
      ['ROLE_USER', 'ROLE_AGENT', 'ROLE_AGENT', 'ROLE_AGENT'],
    );
  });

  it('sends the same sequence on v0.3, the last update final; the fold equals tasks/get', async () => {
    const frames = sseResults(await (await rpc('message/stream', { message: v03Message('get_products') })).text());
    assert.deepEqual(
      frames.map((f) => f.kind),
      ['task', 'status-update', 'status-update', 'artifact-update', 'status-update'],
    );
    assert.deepEqual(
      frames.map((f) => f.final),
      [undefined, false, false, undefined, true],
    );
    const interim = (frames[2]!.status as Json).message as Json;
    assert.deepEqual(interim.parts, [
      { kind: 'text', text: 'Ranking products' },
      { kind: 'data', data: { percentage: 50, current_step: 'ranking' } },
    ]);
    assert.equal((frames[4]!.status as Json).state, 'completed');

    const snapshot = new TaskSnapshot();
    for (const frame of frames) snapshot.apply(classifyEvent(frame));
    assert.equal(snapshot.final, true);
    assert.deepEqual(snapshot.toTask(), withoutHistory(await getTask('tasks/get', snapshot.id!)));
  });

  it('reaches the official 1.x client as working updates before the completed one, folding to its getTask', async () => {
    const client = await new ClientFactoryV1().createFromUrl(listening.url);
    const request = {
      tenant: '',
      message: {
        ...v1Message('get_products'),
        role: 1,
        parts: [{ content: { $case: 'data', value: { skill: 'get_products', input: {} } } }],
      },
    };
    const payloads: { $case: string; value: Json }[] = [];
    for await (const event of client.sendMessageStream(request as never, ACTIVATED_CALL)) {
      payloads.push((event as unknown as { payload: { $case: string; value: Json } }).payload);
      if (payloads.length > 20) break;
    }
    assert.deepEqual(
      payloads.map((p) => p.$case),
      ['task', 'statusUpdate', 'statusUpdate', 'artifactUpdate', 'statusUpdate'],
    );
    const states = payloads.filter((p) => p.$case === 'statusUpdate').map((p) => (p.value.status as Json).state);
    assert.deepEqual(states, [2, 2, 3]); // TASK_STATE_WORKING, WORKING, COMPLETED
    const progress = ((payloads[2]!.value.status as Json).message as Json).parts as {
      content: { $case: string; value: unknown };
    }[];
    assert.deepEqual(progress[1]?.content, { $case: 'data', value: { percentage: 50, current_step: 'ranking' } });

    const id = payloads[0]!.value.id as string;
    const task = (await client.getTask({ tenant: '', id }, ACTIVATED_CALL)) as unknown as Json;
    assert.deepEqual(task.status, payloads[4]?.value.status);
    assert.deepEqual(task.artifacts, [payloads[3]?.value.artifact]);
  });

  it('reaches the official 0.3 client as status-update events before the final one, folding to its getTask', async () => {
    const client = await new ClientFactoryV03().createFromUrl(listening.url);
    const events: Json[] = [];
    for await (const event of client.sendMessageStream({ message: v03Message('get_products') })) {
      events.push(event as unknown as Json);
      if (events.length > 20) break;
    }
    assert.deepEqual(
      events.map((e) => e.kind),
      ['task', 'status-update', 'status-update', 'artifact-update', 'status-update'],
    );
    assert.deepEqual(
      events.filter((e) => e.kind === 'status-update').map((e) => (e.status as Json).state),
      ['working', 'working', 'completed'],
    );
    assert.equal(events[4]?.final, true);

    const task = (await client.getTask({ id: events[0]?.id as string })) as unknown as Json;
    assert.deepEqual(task.status, events[4]?.status);
    assert.deepEqual(task.artifacts, [events[3]?.artifact]);
  });

  for (const wire of ['1.0', '0.3'] as const) {
    it(`reaches AdcpClient onProgress on ${wire} as working progress before completed, the result equal to GetTask's`, async () => {
      const client = new AdcpClient({ url: listening.url, protocol: 'a2a', a2aWire: wire, retry: false });
      try {
        const events: ProgressEvent[] = [];
        const result = await client.call(
          'get_products',
          { buying_mode: 'brief', brief: 'ctv' },
          { onProgress: (e) => events.push(e) },
        );
        assert.deepEqual(
          events.map((e) => e.status),
          ['working', 'working', 'working', 'working', 'completed'],
        );
        assert.deepEqual(
          events.slice(1, 3).map((e) => ({ message: e.message, percentage: e.percentage, step: e.step })),
          [
            { message: 'Reading the brief', percentage: undefined, step: 'brief' },
            { message: 'Ranking products', percentage: 50, step: 'ranking' },
          ],
        );
        assert.equal(result.status, 'completed');
        assert.deepEqual(result.data?.['products'], PRODUCTS);

        const id = result.transportTaskId!;
        assert.equal(events[0]?.taskId, id);
        const fromGetTask = taskResultFromA2A(await getTask(wire === '1.0' ? 'GetTask' : 'tasks/get', id));
        assert.deepEqual({ ...result, raw: undefined }, { ...fromGetTask, raw: undefined });
      } finally {
        await client.close();
      }
    });
  }

  it('shows the latest progress report to GetTask while a non-blocking send runs', async () => {
    const reply = (await (
      await rpc('SendMessage', { message: v1Message('sync_creatives'), configuration: { returnImmediately: true } })
    ).json()) as Json;
    const id = ((reply.result as Json).task as Json).id as string;
    let parts: unknown;
    for (let i = 0; i < 200 && parts === undefined; i += 1) {
      const status = (await getTask('GetTask', id)).status as Json;
      const message = status.message as Json | undefined;
      if (JSON.stringify(message?.parts ?? []).includes('validate')) parts = message?.parts;
      else await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.deepEqual(parts, [{ text: 'Validating assets' }, { data: { percentage: 25, current_step: 'validate' } }]);
    held.open();
    let state: unknown;
    for (let i = 0; i < 200 && state !== 'TASK_STATE_COMPLETED'; i += 1) {
      state = ((await getTask('GetTask', id)).status as Json).state;
      if (state !== 'TASK_STATE_COMPLETED') await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.equal(state, 'TASK_STATE_COMPLETED');
  });
});

describe('the reference seller over an A2A stream', () => {
  let seller: ReferenceSeller;
  before(async () => {
    seller = await startReferenceSeller({});
  });
  after(async () => {
    await seller.close();
  });

  it('reports a ranking step for get_products before the completed result', async () => {
    const client = new AdcpClient({ url: seller.url, protocol: 'a2a', retry: false });
    try {
      const events: ProgressEvent[] = [];
      const result = await client.call(
        'get_products',
        { buying_mode: 'brief', brief: 'ctv sports' },
        { onProgress: (e) => events.push(e) },
      );
      assert.equal(result.status, 'completed');
      const ranking = events.findIndex((e) => e.status === 'working' && e.step === 'ranking' && e.percentage === 50);
      assert.ok(ranking > 0, JSON.stringify(events));
      assert.equal(events.at(-1)?.status, 'completed');
    } finally {
      await client.close();
    }
  });
});

describe('progressUpdate', () => {
  const partsOf = (message?: string, progress?: { percentage?: number; step?: string }) =>
    progressUpdate('t1', 'c1', 'get_products', message, progress).status?.message?.parts.map((p) => p.content);

  it('sends only a TextPart, naming the tool, when there is no progress to tell', () => {
    assert.deepEqual(partsOf(), [{ $case: 'text', value: 'Running get_products.' }]);
  });

  it('leaves out a percentage outside 0-100 but keeps the step', () => {
    assert.deepEqual(partsOf('Almost', { percentage: 150, step: 'x' }), [
      { $case: 'text', value: 'Almost' },
      { $case: 'data', value: { current_step: 'x' } },
    ]);
  });
});
