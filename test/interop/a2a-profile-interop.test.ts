// test-timeout-ms: 240000
/**
 * The AdCP A2A profile between independent implementations, all on 127.0.0.1:
 * - the official `@a2a-js/sdk` clients call the reference seller: 1.x on A2A 1.0 with the profile
 *   activated (and refused without it), 0.3 on v0.3 (the incumbent wire, no profile);
 * - AdcpClient calls `@a2a-js/sdk` sellers (1.x, whose SDK enforces the required extension, and
 *   0.3) and follows Submitted work with `get_task_status` invocations, never polling the A2A task.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ClientFactory as ClientFactoryV1 } from '@a2a-js/sdk/client';
import { ClientFactory as ClientFactoryV03 } from 'a2a-sdk-v03/client';
import { AdcpClient } from '../../src/client/index.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { startServer, type TestServer } from '../a2a/sdk-servers.js';
import type { Script } from '../a2a/scenario.js';
import { ACTIVATED_CALL } from '../server/profile-activation.js';

type Json = Record<string, unknown>;
const MAX_POLLS = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const productsInput = { buying_mode: 'brief', brief: 'podcast audio' };
const buyInput = (): Json => ({
  ...mediaBuyRequest([packageRequest('display_news', 10)]),
  idempotency_key: randomUUID(),
});

/** The last DataPart of a 1.x SDK Task's first artifact (protobuf-style parts: `{ content: { $case, value } }`). */
function v1Data(result: unknown): Json {
  const task = result as {
    status?: { state?: number };
    artifacts?: { parts: { content?: { $case: string; value: unknown } }[] }[];
  };
  assert.ok(task.status !== undefined, `not a Task: ${JSON.stringify(result)}`);
  const parts = task.artifacts?.[0]?.parts ?? [];
  const data = parts
    .map((p) => p.content)
    .filter((c) => c?.$case === 'data')
    .at(-1)?.value;
  assert.ok(typeof data === 'object' && data !== null, 'no DataPart in the artifact');
  return data as Json;
}

/** The last DataPart of a 0.3 SDK Task's first artifact. */
function v03Data(result: unknown): Json {
  const task = result as { kind?: string; artifacts?: { parts: { kind: string; data?: unknown }[] }[] };
  assert.equal(task.kind, 'task', `not a Task: ${JSON.stringify(result)}`);
  const data = (task.artifacts?.[0]?.parts ?? []).filter((p) => p.kind === 'data').at(-1)?.data;
  assert.ok(typeof data === 'object' && data !== null, 'no DataPart in the artifact');
  return data as Json;
}

/** Polls `get_task_status` through `invoke` until the AdCP task is completed (bounded). */
async function pollUntilCompleted(invoke: (input: Json) => Promise<Json>, taskId: string): Promise<Json> {
  for (let i = 0; i < MAX_POLLS; i++) {
    const status = await invoke({ task_id: taskId, include_result: true });
    assert.equal(status['task_id'], taskId);
    if (status['status'] === 'completed') return status;
    await sleep(20);
  }
  assert.fail(`task ${taskId} did not complete in ${MAX_POLLS} polls`);
}

describe('official @a2a-js/sdk clients against the reference seller', () => {
  let seller: ReferenceSeller;
  before(async () => {
    seller = await startReferenceSeller({ timings: { workingAfterMs: 10, completeAfterMs: 40 } });
  });
  after(async () => {
    await seller.close();
  });

  describe('the 1.x client on A2A 1.0, profile activated', () => {
    const v1Message = (skill: string, input: Json) => ({
      tenant: '',
      message: {
        messageId: randomUUID(),
        role: 1, // ROLE_USER
        parts: [{ content: { $case: 'data', value: { skill, input } } }],
      },
    });

    it('gets products, and a media buy: Submitted in a completed Task, followed with get_task_status', async () => {
      const client = await new ClientFactoryV1().createFromUrl(seller.url);
      const products = v1Data(
        await client.sendMessage(v1Message('get_products', productsInput) as never, ACTIVATED_CALL),
      );
      assert.equal((products['products'] as Json[])[0]?.['product_id'], 'audio_podcasts');

      const sent = await client.sendMessage(v1Message('create_media_buy', buyInput()) as never, ACTIVATED_CALL);
      assert.equal((sent as { status: { state: number } }).status.state, 3, 'TASK_STATE_COMPLETED');
      const submitted = v1Data(sent);
      assert.equal(submitted['status'], 'submitted');
      const taskId = submitted['task_id'];
      assert.ok(typeof taskId === 'string' && taskId !== (sent as { id: string }).id);
      const final = await pollUntilCompleted(
        async (input) => v1Data(await client.sendMessage(v1Message('get_task_status', input) as never, ACTIVATED_CALL)),
        taskId,
      );
      assert.match(String((final['result'] as Json | undefined)?.['media_buy_id']), /^mb_/);
    });

    it('is refused without the activation header, naming the rule', async () => {
      const client = await new ClientFactoryV1().createFromUrl(seller.url);
      await assert.rejects(client.sendMessage(v1Message('get_products', productsInput) as never), (e: unknown) => {
        assert.match(String((e as Error).message), /extension_not_activated|A2A-Extensions/);
        return true;
      });
    });
  });

  describe('the 0.3 client on v0.3 (no profile on that wire)', () => {
    const v03Message = (skill: string, input: Json) => ({
      message: {
        kind: 'message' as const,
        messageId: randomUUID(),
        role: 'user' as const,
        parts: [{ kind: 'data' as const, data: { skill, input } }],
      },
    });

    it('gets products, and follows a Submitted media buy with get_task_status', async () => {
      const client = await new ClientFactoryV03().createFromUrl(seller.url);
      const products = v03Data(await client.sendMessage(v03Message('get_products', productsInput)));
      assert.equal((products['products'] as Json[])[0]?.['product_id'], 'audio_podcasts');
      const submitted = v03Data(await client.sendMessage(v03Message('create_media_buy', buyInput())));
      assert.equal(submitted['status'], 'submitted');
      const final = await pollUntilCompleted(
        async (input) => v03Data(await client.sendMessage(v03Message('get_task_status', input))),
        String(submitted['task_id']),
      );
      assert.match(String((final['result'] as Json | undefined)?.['media_buy_id']), /^mb_/);
    });
  });
});

/** A seller that answers create_media_buy Submitted (in a completed A2A task) and get_task_status completed. */
const submittedScript: Script = (skill, input) => {
  if (skill === 'get_task_status') {
    const data = {
      task_id: input['task_id'],
      task_type: 'create_media_buy',
      status: 'completed',
      result: { status: 'completed', media_buy_id: 'mb_7', packages: [] },
    };
    return [{ artifact: { id: 'adcp-result', parts: [{ data }] } }, { state: 'completed' }];
  }
  const data = { status: 'submitted', task_id: 'adcp_task_7', message: 'Queued for review' };
  return [
    { artifact: { id: 'adcp-result', parts: [{ text: 'Queued for review' }, { data }] } },
    { state: 'completed' },
  ];
};

for (const kind of ['v1', 'v0.3'] as const) {
  describe(`AdcpClient against an @a2a-js/sdk ${kind === 'v1' ? '1.x (A2A 1.0, profile required)' : '0.3 (v0.3)'} seller`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer(kind, submittedScript);
    });
    after(async () => {
      await server.close();
    });

    it('discovers the card and follows Submitted work with get_task_status invocations only', async () => {
      const client = new AdcpClient({ url: server.base, protocol: 'a2a', timeoutMs: 20_000, retry: false });
      try {
        const found = await client.discover();
        assert.equal(found.card.a2aProfile?.ok, kind === 'v1' ? true : false);
        const submitted = await client.call('create_media_buy', {});
        assert.equal(submitted.status, 'submitted');
        assert.equal(submitted.taskId, 'adcp_task_7');
        const final = await client.waitFor(submitted, { pollIntervalMs: 10, timeoutMs: 20_000 });
        assert.equal(final.status, 'completed');
        assert.equal(final.data?.['media_buy_id'], 'mb_7');
        const send = kind === 'v1' ? 'SendMessage' : 'message/send';
        assert.deepEqual(server.calls, [send, send, send], 'capabilities, the buy, one get_task_status poll');
        if (kind === 'v1') assert.ok(server.versions.every((v) => v === '1.0'));
      } finally {
        await client.close();
      }
    });
  });
}
