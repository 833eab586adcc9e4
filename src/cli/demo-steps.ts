import { mediaBuyRequest, packageRequest } from '../seller/sample-requests.js';
import { printable } from './args.js';
import type { DemoEnv } from './demo-env.js';
import type { DemoStep, StepCheck } from './demo-runner.js';
import type { Style } from './style.js';
import { formatTable } from './table.js';
import type { AdcpClient } from '../client/adcp-client.js';
import type { TaskResult } from '../core/task-result.js';
import type { JsonObject } from '../core/types.js';

/** What the steps share: the running env, one buyer client per wire, and what earlier steps found. */
export interface DemoContext {
  env: DemoEnv;
  /** MCP on the era learned from the seller (2026-07-28 with adcp-wire's seller), or pinned to 2025. */
  mcp: AdcpClient;
  /** The era `mcp` should speak (`adcp demo --mcp-era`). */
  mcpEra: 'modern' | 'legacy';
  /** MCP pinned to the 2025 era, where the caller asks for an MCP Task (the 2026 server decides). */
  mcpLegacy: AdcpClient;
  a2a: AdcpClient;
  /** An MCP client whose fetch counts `tools/call` requests (to show a retry happened). */
  counted: { client: AdcpClient; toolCalls(): number; rateLimitedAnswers(): number };
  style: Style;
  found: { productIds: string[] };
}

const BRIEF = 'Sports fans on connected TV and online video, spring campaign';

/** The buyer's script, in order. Each step checks what it should see and says what it saw. */
export function demoSteps(ctx: DemoContext): DemoStep[] {
  return [
    discoverStep(ctx),
    productsStep(ctx, 'mcp'),
    productsStep(ctx, 'a2a'),
    mediaBuyStep(ctx),
    mcpTaskStep(ctx),
    rateLimitStep(ctx),
  ];
}

function discoverStep(ctx: DemoContext): DemoStep {
  return {
    title: 'discover (MCP and A2A)',
    expect: `both cards, MCP era ${ctx.mcpEra}, tools, task support`,
    async run(say) {
      const [mcp, a2a] = await Promise.all([
        ctx.mcp.discover({ timeoutMs: 10_000 }),
        ctx.a2a.discover({ timeoutMs: 10_000 }),
      ]);
      const name = (card: JsonObject | undefined) => printable(scalarText(card?.['title'] ?? card?.['name']), 60);
      say(`MCP server card "${name(mcp.card.card)}" at ${printable(mcp.card.url ?? '?')}`);
      say(`A2A agent card  "${name(a2a.card.card)}" at ${printable(a2a.card.url ?? '?')}`);
      const era = mcp.mcp;
      say(
        `MCP era ${era?.era ?? printable(mcp.mcpProblem ?? 'unknown', 80)}${era?.protocolVersion === undefined ? '' : ` (${printable(era.protocolVersion, 20)})`}, extensions: ${era === undefined || era.extensions.length === 0 ? 'none' : era.extensions.map((e) => printable(e, 60)).join(', ')}`,
      );
      const tools = mcp.tools ?? [];
      for (const level of ['optional', 'required', 'forbidden'] as const) {
        const names = tools.filter((t) => t.taskSupport === level).map((t) => printable(t.name, 40));
        if (names.length > 0) say(`MCP task support ${level.padEnd(9)} ${names.join(', ')}`);
      }
      const support = (name: string) => tools.find((t) => t.name === name)?.taskSupport;
      const versions = (mcp.capabilities?.data?.['adcp'] as JsonObject | undefined)?.['supported_versions'];
      say(
        `get_adcp_capabilities: ${mcp.capabilities?.status ?? 'missing'}, AdCP ${Array.isArray(versions) ? versions.join(', ') : '?'}`,
      );
      const ok =
        mcp.card.card !== undefined &&
        a2a.card.card !== undefined &&
        support('get_products') === 'optional' &&
        support('get_adcp_capabilities') === 'forbidden' &&
        mcp.capabilities?.status === 'completed' &&
        era?.era === ctx.mcpEra;
      return {
        ok,
        got: `2 cards, MCP era ${era?.era ?? 'unknown'}, ${tools.length} tools, ${(a2a.tools ?? []).length} skills`,
      };
    },
  };
}

function productsStep(ctx: DemoContext, wire: 'mcp' | 'a2a'): DemoStep {
  return {
    title: `get_products (${wire.toUpperCase()})`,
    expect: wire === 'mcp' ? 'completed, products' : 'the same products',
    async run(say) {
      const client = wire === 'mcp' ? ctx.mcp : ctx.a2a;
      const result = await client.call('get_products', { buying_mode: 'brief', brief: BRIEF }, { timeoutMs: 10_000 });
      const products = productsOf(result);
      say(`${result.status}${result.message !== undefined ? `: ${printable(result.message, 80)}` : ''}`);
      if (products.length > 0) {
        const rows = products.map((p) => [scalarText(p['product_id'], ''), scalarText(p['name'], ''), cpmOf(p)]);
        for (const line of formatTable(['product_id', 'name', 'CPM'], rows, { maxCell: 44, headerStyle: ctx.style.dim })
          .trimEnd()
          .split('\n'))
          say(line);
      }
      const ids = products.map((p) => String(p['product_id']));
      if (wire === 'mcp') {
        ctx.found.productIds = ids;
        return { ok: result.status === 'completed' && ids.length > 0, got: `${result.status}, ${ids.length} products` };
      }
      const same = ids.join(',') === ctx.found.productIds.join(',');
      return {
        ok: result.status === 'completed' && ids.length > 0 && same,
        got: `${result.status}, ${ids.length} products${same ? ', same' : ', DIFFERENT'}`,
      };
    },
  };
}

function mediaBuyStep(ctx: DemoContext): DemoStep {
  return {
    title: 'create_media_buy + webhook',
    expect: 'submitted; signed webhook and poll: completed',
    async run(say) {
      const productId = ctx.found.productIds[0] ?? 'ctv_premium_sports';
      const operationId = `op-demo-${Date.now().toString(36)}`;
      const submitted = await ctx.mcp.call(
        'create_media_buy',
        {
          ...mediaBuyRequest([packageRequest(productId, 25_000)]),
          push_notification_config: { url: ctx.env.receiver.url, operation_id: operationId },
        },
        { timeoutMs: 10_000, context: { campaign: 'demo-spring' } },
      );
      say(
        `${submitted.status}, task ${printable(submitted.taskId ?? '?', 60)}${submitted.message ? `: ${printable(submitted.message, 80)}` : ''}`,
      );
      if (submitted.status !== 'submitted' || submitted.taskId === undefined)
        return { ok: false, got: `${submitted.status} (no task_id)` };
      const [operation, polled] = await Promise.all([
        ctx.env.receiver.waitForOperation(operationId, { timeoutMs: 10_000 }),
        ctx.mcp.waitFor(submitted, { timeoutMs: 10_000, pollIntervalMs: 300, maxPollIntervalMs: 600 }),
      ]);
      const viaWebhook = scalarText((operation.result as JsonObject | undefined)?.['media_buy_id']);
      const viaPoll = scalarText(polled.data?.['media_buy_id']);
      const hooks = ctx.env.events.filter((e) => e.operationId === operationId).map((e) => e.status);
      say(
        `webhooks (RFC 9421 signatures verified): ${hooks.join(' -> ') || 'none'}; operation ${operation.status}, ${printable(viaWebhook, 40)}`,
      );
      say(`polling get_task_status: ${polled.status}, ${printable(viaPoll, 40)}`);
      const ok =
        operation.status === 'completed' &&
        polled.status === 'completed' &&
        viaWebhook === viaPoll &&
        viaPoll.startsWith('mb_');
      return {
        ok,
        got: `webhooks ${hooks.join(', ') || 'none'}; poll ${polled.status}${viaWebhook === viaPoll ? '' : ' (other buy)'}`,
      };
    },
  };
}

function mcpTaskStep(ctx: DemoContext): DemoStep {
  return {
    title: 'MCP Task-augmented call (2025 era)',
    expect: 'an MCP Task, completed',
    async run(say) {
      const result = await ctx.mcpLegacy.call(
        'get_products',
        { buying_mode: 'brief', brief: 'audio and podcasts' },
        { task: { ttl: 60_000 }, timeoutMs: 10_000 },
      );
      say(
        `tools/call with params.task -> MCP Task ${printable(result.transportTaskId ?? '(none)', 60)} -> ${result.status}, ${productsOf(result).length} products`,
      );
      return check(result.status === 'completed' && result.transportTaskId !== undefined, `MCP Task ${result.status}`);
    },
  };
}

function rateLimitStep(ctx: DemoContext): DemoStep {
  return {
    title: 'rate-limited call',
    expect: 'RATE_LIMITED, retried, completed',
    async run(say) {
      const before = ctx.counted.toolCalls();
      const result = await ctx.counted.client.call(
        'get_products',
        { buying_mode: 'brief', brief: `display banners [rate-limit-once] ${Date.now()}` },
        { timeoutMs: 10_000 },
      );
      const attempts = ctx.counted.toolCalls() - before;
      const limited = ctx.counted.rateLimitedAnswers();
      say(
        `first answer RATE_LIMITED (retry_after 1 s): ${limited > 0 ? 'yes' : 'no'}; the client waited and retried: ${attempts} attempts -> ${result.status}`,
      );
      return check(
        result.status === 'completed' && attempts === 2 && limited > 0,
        `${attempts} attempts, ${result.status}`,
      );
    },
  };
}

function check(ok: boolean, got: string): StepCheck {
  return { ok, got };
}

function productsOf(result: TaskResult): JsonObject[] {
  const products = result.data?.['products'];
  return Array.isArray(products)
    ? products.filter((p): p is JsonObject => typeof p === 'object' && p !== null && !Array.isArray(p))
    : [];
}

function cpmOf(product: JsonObject): string {
  const options = product['pricing_options'];
  const first = Array.isArray(options) ? (options[0] as JsonObject | undefined) : undefined;
  // 3.1 pricing options: a fixed price, else an auction's floor.
  const price = first?.['fixed_price'] ?? first?.['floor_price'];
  return typeof price === 'number' ? `$${price}` : '-';
}

/** A seller's string, number or boolean as text; anything else (absent, an object) as `fallback`. */
function scalarText(value: unknown, fallback = '?'): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return fallback;
}
