import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createA2ATransport, A2ATransport } from '../../src/a2a/index.js';
import { AdcpWireError } from '../../src/core/wire-error.js';
import type { ProgressEvent } from '../../src/transport/transport.js';
import type { ServerKind } from './sdk-servers.js';
import { PRODUCTS } from './scripts.js';
import { useScriptServer } from './server-hooks.js';

const MAX = 1024 * 1024;
const CONFIGS: [ServerKind, 'auto' | '0.3'][] = [
  ['v0.3', 'auto'],
  ['v1', 'auto'],
  ['v1-compat', 'auto'],
  ['v1-compat', '0.3'],
];

for (const [kind, pin] of CONFIGS) {
  describe(`A2ATransport against a ${kind} SDK server (wire ${pin})`, () => {
    const seller = useScriptServer(kind);
    const transport = () => new A2ATransport({ url: seller.server.base, maxBytes: MAX, a2aWire: pin });
    const expectedWire = kind === 'v0.3' || pin === '0.3' ? '0.3' : '1.0';

    it(`chooses the ${expectedWire} wire from the card`, async () => {
      const t = transport();
      const endpoint = await t.currentEndpoint({ maxBytes: MAX });
      assert.equal(endpoint.wire, expectedWire);
    });

    it('returns the last DataPart of a completed task with several DataParts', async () => {
      const result = await transport().callTool('get_products', { brief: 'ctv' }, { maxBytes: MAX });
      assert.equal(result.status, 'completed');
      assert.deepEqual(result.data, { ...PRODUCTS, context: {} });
      assert.equal(result.message, 'Found 1 product');
      assert.equal(result.protocol, 'a2a');
      assert.equal(typeof result.transportTaskId, 'string');
      assert.equal(typeof result.contextId, 'string');
    });

    it('sends one DataPart { skill, input } on the chosen wire', async () => {
      const before = seller.server.calls.length;
      await transport().callTool('get_products', { brief: 'x' }, { maxBytes: MAX });
      assert.deepEqual(seller.server.calls.slice(before), [expectedWire === '1.0' ? 'SendMessage' : 'message/send']);
      assert.equal(seller.server.versions.at(-1), expectedWire === '1.0' ? '1.0' : undefined);
    });

    it('reports working then completed over streaming, and the final state becomes the result', async () => {
      const events: ProgressEvent[] = [];
      const result = await transport().callTool(
        'get_products',
        { brief: 'ctv' },
        { maxBytes: MAX, onProgress: (e) => events.push(e) },
      );
      assert.deepEqual(
        events.map((e) => e.status),
        ['submitted', 'working', 'working', 'completed'],
      );
      const working = events[1]!;
      assert.equal(working.percentage, 40);
      assert.equal(working.step, 'searching');
      assert.equal(working.message, 'Searching');
      assert.deepEqual(working.data, { percentage: 40, current_step: 'searching' });
      assert.equal(result.status, 'completed');
      assert.deepEqual(result.data, { ...PRODUCTS, context: {} });
      assert.equal(seller.server.calls.at(-1), expectedWire === '1.0' ? 'SendStreamingMessage' : 'message/stream');
    });

    it('reports working then completed over polling after a non-blocking send', async () => {
      const g = seller.gate('poll');
      const t = transport();
      const first = await t.callTool(
        'create_media_buy',
        { scenario: 'gated', gate: 'poll' },
        { maxBytes: MAX, returnImmediately: true },
      );
      assert.ok(first.status === 'submitted' || first.status === 'working', `got ${first.status}`);
      const id = first.transportTaskId!;
      let polled = await t.getTask(id, { maxBytes: MAX });
      for (let i = 0; i < 50 && polled.status === 'submitted'; i++) polled = await t.getTask(id, { maxBytes: MAX });
      assert.equal(polled.status, 'working');
      assert.equal(polled.transportTaskId, id);
      g.open();
      for (let i = 0; i < 200 && polled.status !== 'completed'; i++) {
        await new Promise((r) => setTimeout(r, 5));
        polled = await t.getTask(id, { maxBytes: MAX });
      }
      assert.equal(polled.status, 'completed');
      assert.deepEqual(polled.data, { status: 'completed', media_buy_id: 'mb_1' });
    });

    it('returns a failed task with its adcp_error and recovery, text sanitised', async () => {
      const result = await transport().callTool('get_products', { scenario: 'failed' }, { maxBytes: MAX });
      assert.equal(result.status, 'failed');
      if (result.status !== 'failed') return;
      assert.equal(result.error.code, 'RATE_LIMITED');
      assert.equal(result.error.action, 'retry');
      assert.equal(result.error.retryDelaySeconds, 5);
      assert.equal(result.message, 'Rate limited retry later');
    });

    it('returns a rejected task with its adcp_error', async () => {
      const result = await transport().callTool('create_media_buy', { scenario: 'rejected' }, { maxBytes: MAX });
      assert.equal(result.status, 'rejected');
      if (result.status !== 'rejected') return;
      assert.equal(result.error.code, 'POLICY_VIOLATION');
      assert.equal(result.error.action, 'surface_to_caller');
    });

    it('returns input-required with the first DataPart of the status message', async () => {
      const result = await transport().callTool('create_media_buy', { scenario: 'input-required' }, { maxBytes: MAX });
      assert.equal(result.status, 'input-required');
      assert.deepEqual(result.data, { reason: 'BUDGET_EXCEEDS_LIMIT' });
      assert.equal(result.message, 'Budget needs approval');
    });

    it('continues an input-required task with its transportTaskId and contextId', async () => {
      const t = transport();
      const first = await t.callTool('create_media_buy', { scenario: 'input-required' }, { maxBytes: MAX });
      assert.equal(first.status, 'input-required');
      const options = { maxBytes: MAX, contextId: first.contextId!, continueTask: first.transportTaskId! };
      const second = await t.callTool('create_media_buy', { scenario: 'submitted' }, options);
      assert.equal(second.status, 'submitted');
      assert.equal(second.transportTaskId, first.transportTaskId);
      assert.equal(second.contextId, first.contextId);
    });

    it('refuses an auth-required challenge_url outside the card origin', async () => {
      await assert.rejects(
        transport().callTool(
          'create_media_buy',
          { scenario: 'auth-required', challenge_url: 'https://evil.example/login?redirect_uri=https://evil.example' },
          { maxBytes: MAX },
        ),
        (e: unknown) => e instanceof AdcpWireError && e.code === 'unsafe_url',
      );
    });

    it('reports a {response: {...}} wrapper as a typed error', async () => {
      await assert.rejects(
        transport().callTool('get_products', { scenario: 'wrapper' }, { maxBytes: MAX }),
        (e: unknown) => e instanceof AdcpWireError && e.code === 'wrapper_detected',
      );
    });

    it('keeps the AdCP submitted status and task_id of a completed A2A task', async () => {
      const result = await transport().callTool('create_media_buy', { scenario: 'submitted' }, { maxBytes: MAX });
      assert.equal(result.status, 'submitted');
      assert.equal(result.taskId, 'adcp_task_7');
      assert.equal(result.message, 'Queued for review');
    });

    it('carries contextId into the next message', async () => {
      const t = transport();
      const first = await t.callTool('get_products', { scenario: 'echo-context' }, { maxBytes: MAX });
      const second = await t.callTool(
        'get_products',
        { scenario: 'echo-context' },
        { maxBytes: MAX, contextId: first.contextId! },
      );
      assert.equal(second.contextId, first.contextId);
      assert.equal(second.data?.['context_id_seen'], first.contextId);
    });

    it('lists the card skills as tools', async () => {
      const tools = await transport().listTools({ maxBytes: MAX });
      assert.deepEqual(
        tools.map((t) => t.name),
        ['get_adcp_capabilities', 'get_task_status', 'get_products', 'create_media_buy'],
      );
    });

    it('answers not_found for an unknown task id', async () => {
      await assert.rejects(
        transport().getTask('no-such-task', { maxBytes: MAX }),
        (e: unknown) => e instanceof AdcpWireError && e.code === 'not_found',
      );
    });

    it('cancels a running task', async () => {
      const g = seller.gate('cancel');
      const t = transport();
      const first = await t.callTool(
        'create_media_buy',
        { scenario: 'gated', gate: 'cancel' },
        { maxBytes: MAX, returnImmediately: true },
      );
      const result = await t.cancelTask(first.transportTaskId!, { maxBytes: MAX });
      assert.equal(result.status, 'canceled');
      g.open();
    });
  });
}

describe('createA2ATransport', () => {
  it('returns an a2a transport', () => {
    assert.equal(createA2ATransport({ url: 'http://127.0.0.1:1/', maxBytes: 10 }).protocol, 'a2a');
  });

  it('refuses a non-http URL at once', () => {
    assert.throws(() => createA2ATransport({ url: 'ftp://x/', maxBytes: 10 }), TypeError);
  });
});
