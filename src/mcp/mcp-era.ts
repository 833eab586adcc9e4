import type { JsonObject } from '../core/types.js';
import { AdcpWireError } from '../core/wire-error.js';
import { MODERN_MCP_REVISION, postModern, type ModernPostOptions } from './modern-post.js';
import { RpcErrorAnswer } from './rpc-error-answer.js';

/** Which MCP era an agent speaks (basic-versioning.md, "Terminology"). */
export type McpEra = 'modern' | 'legacy';

/** How AdcpClient picks the era: probe once (`auto`), or pin one. */
export type McpEraChoice = 'auto' | McpEra;

/** The JSON-RPC codes only a modern server answers with (basic/index.md, "Error codes"). */
const MODERN_ERRORS = new Set([-32020, -32021, -32022]);

/** HTTP statuses with which legacy servers refuse a request they cannot place (no session, no such endpoint). */
const LEGACY_STATUSES = new Set([400, 404, 405, 406, 415]);

export interface EraProbe {
  era: McpEra;
  /** The `server/discover` result, when the agent is modern. */
  discover?: JsonObject;
}

/**
 * Learns the era with `server/discover` (basic-versioning.md, "Backward Compatibility";
 * streamable-http.md, "Backward Compatibility"): a `DiscoverResult` offering 2026-07-28, or a
 * recognised modern error, means modern; any other JSON-RPC error or a refusing 4xx means legacy
 * (then `initialize`). A network failure, a timeout, 401/403, 429 and 5xx are not answers about
 * the era: they throw, and nothing falls back.
 */
export async function probeMcpEra(options: ModernPostOptions): Promise<EraProbe> {
  try {
    const discover = await postModern('server/discover', {}, options);
    const versions = discover.supportedVersions;
    if (Array.isArray(versions) && versions.includes(MODERN_MCP_REVISION)) return { era: 'modern', discover };
    throw new AdcpWireError(
      'protocol',
      `the MCP server at ${options.url} offers ${JSON.stringify(versions)} via server/discover, not ${MODERN_MCP_REVISION}`,
      { url: options.url },
    );
  } catch (error) {
    if (error instanceof RpcErrorAnswer) return eraOfRefusal(error, options.url);
    if (error instanceof AdcpWireError && error.code === 'http_status' && LEGACY_STATUSES.has(error.status ?? 0)) {
      return { era: 'legacy' };
    }
    throw error;
  }
}

function eraOfRefusal(error: RpcErrorAnswer, url: string): EraProbe {
  const { code, data } = error.error;
  if (!MODERN_ERRORS.has(code)) return { era: 'legacy' }; // method not found, "send initialize first"...
  const supported = (data as { supported?: unknown } | undefined)?.supported;
  // A dual-era server that does not serve our modern revision but lists a 2025 one: speak that.
  if (code === -32022 && Array.isArray(supported) && supported.some((v) => typeof v === 'string' && v < '2026')) {
    return { era: 'legacy' };
  }
  throw new AdcpWireError(
    'protocol',
    `the MCP server at ${url} speaks the modern era but refused ${MODERN_MCP_REVISION} (JSON-RPC error ${code}${
      Array.isArray(supported) ? `; it supports ${JSON.stringify(supported).slice(0, 200)}` : ''
    })`,
    { cause: error, url },
  );
}
