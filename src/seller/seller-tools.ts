import type { IncomingMessage } from 'node:http';
import type { JsonObject } from '../core/types.js';
import { isJsonObject } from '../core/json-object.js';
import type { MediaBuyKit } from '../kit/media-buy-kit.js';
import { AdcpToolError } from '../server/tools/tool-error.js';
import type { AdcpToolDefinition, ToolContext } from '../server/types.js';

export type { SellerTimings } from './seller-kit.js';

export interface SellerToolDeps {
  /** The media-buy kit over the seller's catalog and state (seller-kit.ts). */
  kit: MediaBuyKit;
  /** Throws an AdcpToolError when the request asks for a failure (or the caller is over its rate). */
  fault: (tool: string, args: JsonObject, context: Pick<ToolContext, 'headers' | 'principal'>) => void;
  /**
   * Called after create_media_buy's side effect (the task stored and its work started), before the
   * answer goes back: the crash test holds the request there and SIGKILLs the process.
   */
  afterEffect?: (tool: string, headers: IncomingMessage['headers']) => Promise<void>;
  /**
   * Called before get_products does its work: the cancel tests hold a call there until its
   * AbortSignal fires, to see that a cancel reaches the instance running it.
   */
  beforeWork?: (tool: string, args: JsonObject, signal: AbortSignal) => Promise<void>;
}

function invalid(message: string, field: string): AdcpToolError {
  return new AdcpToolError('INVALID_REQUEST', message, { field });
}

/** What the seller checks and adds around a kit tool, before the kit's own work. */
const BEFORE: Record<string, (args: JsonObject, ctx: ToolContext, deps: SellerToolDeps) => Promise<void>> = {
  async get_products(args, ctx, deps) {
    await deps.beforeWork?.('get_products', args, ctx.signal);
    if (args.brief !== undefined && (typeof args.brief !== 'string' || args.brief.length > 10_000)) {
      throw invalid('brief must be a string of at most 10000 characters.', 'brief');
    }
    if (args.filters !== undefined && !isJsonObject(args.filters))
      throw invalid('filters must be an object.', 'filters');
    // An interim `working` update on an A2A stream (the CLI's progress line); nothing on MCP.
    await ctx.working('Ranking the catalog against the brief', { percentage: 50, step: 'ranking' });
  },
  async create_media_buy(args) {
    const po = args.po_number;
    if (po !== undefined && (typeof po !== 'string' || po === '' || po.length > 128)) {
      throw invalid('po_number must be a string of 1 to 128 characters.', 'po_number');
    }
  },
};

/**
 * The reference seller's tools: the media-buy kit's, each behind the seller's failure injection
 * and rate limit, with the seller's own checks and test hooks.
 */
export function sellerTools(deps: SellerToolDeps): AdcpToolDefinition[] {
  const { kit, fault } = deps;
  // Every tool the kit has: the capabilities the seller declares are the kit's own (seller-kit.ts).
  return kit.tools.map((tool): AdcpToolDefinition => ({
    ...tool,
    handler: async (args, ctx) => {
      fault(tool.name, args, ctx);
      await BEFORE[tool.name]?.(args, ctx, deps);
      const answer = await tool.handler(args, ctx);
      if (tool.name === 'get_products' && Array.isArray(answer.products)) {
        const count = answer.products.length;
        return { message: `Found ${count} product${count === 1 ? '' : 's'}`, ...answer };
      }
      if (tool.name === 'create_media_buy') await deps.afterEffect?.('create_media_buy', ctx.headers);
      return answer;
    },
  }));
}
