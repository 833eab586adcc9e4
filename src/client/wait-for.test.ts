import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { waitForResult, type WaitContext } from './wait-for.js';
import type { AdcpTransport } from '../transport/transport.js';
import type { TaskResult } from '../core/task-result.js';
import { AdcpWireError } from '../core/wire-error.js';

/** An in-memory transport whose getTask plays `states` in order. */
function twin(states: TaskResult[]): AdcpTransport & { asked: string[] } {
  const asked: string[] = [];
  return {
    protocol: 'a2a',
    asked,
    callTool: async () => {
      throw new Error('not used');
    },
    getTask: async (id) => {
      asked.push(id);
      const next = states.shift();
      if (next === undefined) throw new Error('no more states');
      return next;
    },
    listTools: async () => [],
    readCard: async () => ({}),
    close: async () => undefined,
  };
}

function context(transport: AdcpTransport, calls: string[] = []): WaitContext {
  return {
    callOnce: async (tool) => {
      calls.push(tool);
      throw new AdcpWireError('protocol', 'not expected');
    },
    toolNames: async () => undefined,
    transport: async () => transport,
    clock: { now: () => 0, random: () => 0, sleep: async () => undefined },
    maxBytes: 1000,
  };
}

const a2a = (status: TaskResult['status'], extra: Record<string, unknown> = {}): TaskResult =>
  ({ status, data: undefined, protocol: 'a2a', raw: null, transportTaskId: 'a2a-task', ...extra }) as TaskResult;

describe('waitForResult with a transport task id', () => {
  it('polls the transport getTask until the task is final', async () => {
    const transport = twin([a2a('working'), a2a('completed', { data: { ok: true } })]);
    const final = await waitForResult(context(transport), a2a('submitted'));
    assert.equal(final.status, 'completed');
    assert.deepEqual(transport.asked, ['a2a-task', 'a2a-task']);
  });

  it('keeps polling after a dropped connection', async () => {
    let polls = 0;
    const transport: AdcpTransport = {
      ...twin([]),
      getTask: async () => {
        polls += 1;
        if (polls === 1) throw new AdcpWireError('network', 'connection reset');
        return a2a('completed');
      },
    };
    const final = await waitForResult(context(transport), a2a('submitted'));
    assert.equal(final.status, 'completed');
    assert.equal(polls, 2);
  });

  it('stops at input-required', async () => {
    const final = await waitForResult(context(twin([a2a('input-required')])), a2a('working'));
    assert.equal(final.status, 'input-required');
  });

  it('throws a non-transient error of a poll', async () => {
    const transport = twin([]);
    const broken = {
      ...transport,
      getTask: async () => {
        throw new AdcpWireError('protocol', 'garbage');
      },
    };
    await assert.rejects(waitForResult(context(broken), a2a('working')), /garbage/);
  });
});

describe('waitForResult picks the task-status tool the agent lists', () => {
  for (const [listed, expected] of [
    [['get_task_status', 'tasks/get', 'tasks_get'], 'get_task_status'],
    [['tasks/get'], 'tasks/get'],
    [['create_media_buy', 'tasks_get'], 'tasks_get'],
    [['create_media_buy'], 'get_task_status'],
  ] as const) {
    it(`polls ${expected} when the agent lists ${listed.join(', ')}`, async () => {
      const calls: { tool: string; args: unknown }[] = [];
      const ctx: WaitContext = {
        ...context(twin([])),
        toolNames: async () => new Set(listed),
        callOnce: async (tool, args) => {
          calls.push({ tool, args });
          return { status: 'completed', data: { status: 'completed', task_id: 't-1' }, protocol: 'a2a', raw: null };
        },
      };
      const final = await waitForResult(ctx, a2a('submitted', { taskId: 't-1' }));
      assert.equal(final.status, 'completed');
      assert.deepEqual(calls, [{ tool: expected, args: { task_id: 't-1', include_result: true } }]);
    });
  }

  it('switches from the A2A task to the AdCP task it hands over', async () => {
    const transport = twin([a2a('submitted', { taskId: 'adcp-9' })]);
    const calls: string[] = [];
    const ctx: WaitContext = {
      ...context(transport),
      toolNames: async () => new Set(['get_task_status']),
      callOnce: async (tool, args) => {
        calls.push(`${tool}:${String(args['task_id'])}`);
        return { status: 'completed', data: { status: 'completed', task_id: 'adcp-9' }, protocol: 'a2a', raw: null };
      },
    };
    const final = await waitForResult(ctx, a2a('working'));
    assert.equal(final.status, 'completed');
    assert.deepEqual(transport.asked, ['a2a-task']);
    assert.deepEqual(calls, ['get_task_status:adcp-9']);
  });
});
