// One buyer scenario through AdcpClient over MCP and over A2A (both wires), against a real MCP
// server (@modelcontextprotocol/sdk) and real A2A servers (@a2a-js/sdk 0.3.x and 1.x) that serve
// the same seller: the TaskResults must be equal apart from the wire's own fields.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AdcpClient } from '../../src/client/index.js';
import type { TaskResult } from '../../src/core/task-result.js';
import { startMcpTestServer, type TestServer as McpServer } from '../mcp/helpers/mcp-test-server.js';
import { startServer, type ServerKind, type TestServer as A2AServer } from './sdk-servers.js';
import type { Script, ScriptStep } from './scenario.js';

type Answer = { kind: 'ok' | 'error' | 'interim'; data: Record<string, unknown>; text: string };

/** The seller, once: what each call answers, whatever the wire. */
function answer(tool: string, args: Record<string, unknown>): Answer {
  const context = (args['context'] as Record<string, unknown> | undefined) ?? undefined;
  const echo = context === undefined ? {} : { context };
  if (tool === 'get_products') {
    return {
      kind: 'ok',
      text: 'Found 2 products',
      data: {
        status: 'completed',
        message: 'Found 2 products',
        products: [{ product_id: 'p1' }, { product_id: 'p2' }],
        ...echo,
      },
    };
  }
  if (tool === 'create_media_buy' && args['total_budget'] === 1) {
    return {
      kind: 'error',
      text: 'Budget too low',
      data: {
        adcp_error: {
          code: 'BUDGET_TOO_LOW',
          message: 'Budget too low',
          field: 'total_budget',
          recovery: 'correctable',
        },
      },
    };
  }
  if (tool === 'create_media_buy') {
    return {
      kind: 'ok',
      text: 'Queued for review',
      data: { status: 'submitted', task_id: 'adcp_task_1', message: 'Queued for review', ...echo },
    };
  }
  if (tool === 'update_media_buy') {
    return {
      kind: 'interim',
      text: 'Needs approval',
      data: { status: 'input-required', message: 'Needs approval', reason: 'APPROVAL_REQUIRED', ...echo },
    };
  }
  return {
    kind: 'error',
    text: 'Unknown tool',
    data: { adcp_error: { code: 'INVALID_REQUEST', message: 'Unknown tool' } },
  };
}

function mcpResult(a: Answer): CallToolResult {
  return {
    content: [{ type: 'text', text: a.text }],
    structuredContent: a.data,
    ...(a.kind === 'error' ? { isError: true } : {}),
  };
}

const a2aScript: Script = (skill, input) => {
  const a = answer(skill, input);
  const steps: ScriptStep[] = [];
  if (a.kind === 'interim') return [{ state: 'input-required', message: [{ text: a.text }, { data: a.data }] }];
  steps.push({ artifact: { id: 'result', parts: [{ text: a.text }, { data: a.data }] } });
  steps.push({ state: a.kind === 'error' ? 'failed' : 'completed' });
  return steps;
};

async function runScenario(client: AdcpClient): Promise<TaskResult[]> {
  const context = { buyer_ref: 'campaign-7' };
  return [
    await client.call('get_products', { brief: 'CTV for sports fans', context }),
    await client.call<string>('create_media_buy', { total_budget: 50000, context }, { idempotencyKey: 'k-1' }),
    await client.call<string>('create_media_buy', { total_budget: 1 }, { idempotencyKey: 'k-2' }),
    await client.call('update_media_buy', { media_buy_id: 'mb_1', context }, { idempotencyKey: 'k-3' }),
  ];
}

/** A TaskResult without what only one wire has. */
function comparable(result: TaskResult): Record<string, unknown> {
  const { raw, protocol, transportTaskId, contextId, ...rest } = result as TaskResult & Record<string, unknown>;
  void raw;
  void protocol;
  void transportTaskId;
  void contextId;
  // The operation names the agent's URL, which differs by transport; its id and task type do not.
  const out: Record<string, unknown> = rest;
  if (result.operation !== undefined) out['operation'] = { ...result.operation, agent: '(agent url)' };
  return out;
}

describe('the same buyer scenario over MCP and over A2A', () => {
  let mcp: McpServer;
  const a2a = new Map<ServerKind, A2AServer>();
  let mcpResults: TaskResult[];

  before(async () => {
    const tools = ['get_products', 'create_media_buy', 'update_media_buy'].map((name) => ({
      name,
      handler: (args: Record<string, unknown>) => mcpResult(answer(name, args)),
    }));
    mcp = await startMcpTestServer({ tools, mode: 'json' });
    for (const kind of ['v0.3', 'v1', 'v1-compat'] as const) a2a.set(kind, await startServer(kind, a2aScript));
    const client = new AdcpClient({ url: mcp.url, protocol: 'mcp', retry: false });
    try {
      mcpResults = await runScenario(client);
    } finally {
      await client.close();
    }
  });
  after(async () => {
    await mcp.close();
    for (const server of a2a.values()) await server.close();
  });

  it('gives the expected statuses over MCP', () => {
    assert.deepEqual(
      mcpResults.map((r) => r.status),
      ['completed', 'submitted', 'failed', 'input-required'],
    );
    assert.deepEqual(mcpResults[0]?.data?.['products'], [{ product_id: 'p1' }, { product_id: 'p2' }]);
    assert.deepEqual(mcpResults[0]?.context, { buyer_ref: 'campaign-7' });
    assert.equal(mcpResults[1]?.taskId, 'adcp_task_1');
    assert.equal(mcpResults[2]?.status === 'failed' ? mcpResults[2].error.code : undefined, 'BUDGET_TOO_LOW');
    assert.ok(mcpResults.every((r) => r.protocol === 'mcp'));
  });

  for (const [kind, wire] of [
    ['v0.3', '0.3'],
    ['v1', '1.0'],
    ['v1-compat', '1.0'],
    ['v1-compat', '0.3'],
  ] as const) {
    it(`gives equal TaskResults over A2A ${wire} (${kind} SDK server)`, async () => {
      const client = new AdcpClient({ url: a2a.get(kind)!.base, protocol: 'a2a', a2aWire: wire, retry: false });
      try {
        const results = await runScenario(client);
        assert.ok(results.every((r) => r.protocol === 'a2a' && typeof r.transportTaskId === 'string'));
        assert.deepEqual(results.map(comparable), mcpResults.map(comparable));
      } finally {
        await client.close();
      }
    });
  }
});
