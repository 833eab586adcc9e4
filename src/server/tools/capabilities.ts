import { isJsonObject } from '../../core/json-object.js';
import type { JsonObject } from '../../core/types.js';
import { parseWireVersion } from '../../schemas/release.js';
import { loadSchemaBundle } from '../../schemas/schema-bundle.js';

/** enums/adcp-protocol.json (manifest `protocol`) to `supported_protocols` values. */
const PROTOCOL_OF_MANIFEST: Readonly<Record<string, string>> = {
  'media-buy': 'media_buy',
  signals: 'signals',
  governance: 'governance',
  creative: 'creative',
  brand: 'brand',
  'sponsored-intelligence': 'sponsored_intelligence',
};

/** The per-protocol blocks `protocols` filters (get-adcp-capabilities.md, "Request Parameters"). */
const PROTOCOL_BLOCKS = ['media_buy', 'signals', 'governance', 'sponsored_intelligence', 'creative', 'brand'];

/**
 * What a seller adds to or changes in the generated `get_adcp_capabilities` document: an object
 * merged into it (objects member by member, anything else replaced), or a function of the
 * generated document. `adcp.major_versions`, `adcp.supported_versions` and `adcp.idempotency` stay
 * the server's: they describe what the server enforces.
 */
export type CapabilitiesOverride = JsonObject | ((generated: JsonObject) => JsonObject);

export interface CapabilitiesConfig {
  /** Releases served (`['3.0', '3.1']`). */
  releases: readonly string[];
  replayTtlSeconds: number;
  inFlightMaxSeconds: number;
  /** Names of the tools the server serves. */
  tools: readonly string[];
  /** Declared protocols (card metadata); default: derived from the tools. */
  protocols?: readonly string[];
  /** The webhook signing key's algorithm, when the server signs webhooks (RFC 9421). */
  webhookSigningAlg?: string;
  /** The `request_signing` block, when the server verifies signed requests. */
  requestSigning?: JsonObject;
  override?: CapabilitiesOverride;
}

/** The protocols the registered tools belong to, by the newest served release's manifest. */
function protocolsOfTools(tools: readonly string[], releases: readonly string[]): string[] {
  const found = new Set<string>();
  for (const release of releases) {
    try {
      const bundle = loadSchemaBundle(release);
      for (const name of tools) {
        const protocol = PROTOCOL_OF_MANIFEST[bundle.tool(name)?.protocol ?? ''];
        if (protocol !== undefined) found.add(protocol);
      }
    } catch {
      // no schemas on disk for this release: nothing to learn from it
    }
  }
  return PROTOCOL_BLOCKS.filter((p) => found.has(p));
}

function merge(base: JsonObject, extra: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = out[key];
    out[key] = isJsonObject(current) && isJsonObject(value) ? merge(current, value) : value;
  }
  return out;
}

/**
 * The `get_adcp_capabilities` document of a server, generated from its configuration and tools
 * (get-adcp-capabilities.md): the releases it serves, the idempotency it enforces (security.md,
 * rule 7), the protocols its tools belong to, webhook and request signing when configured, then
 * the seller's override. Valid against the 3.0 and 3.1 response schemas: a `media_buy` seller that
 * names no `account.supported_billing` (3.0 requires it) declares `['operator']`.
 */
export function buildCapabilities(config: CapabilitiesConfig): JsonObject {
  const majors = [...new Set(config.releases.map((r) => parseWireVersion(r)?.major ?? 3))].sort((a, b) => a - b);
  const adcp: JsonObject = {
    major_versions: majors,
    supported_versions: [...config.releases],
    idempotency: {
      supported: true,
      replay_ttl_seconds: config.replayTtlSeconds,
      in_flight_max_seconds: Math.min(config.inFlightMaxSeconds, config.replayTtlSeconds),
    },
  };
  const protocols = config.protocols ?? protocolsOfTools(config.tools, config.releases);
  let document: JsonObject = { adcp, supported_protocols: protocols.length > 0 ? [...protocols] : ['media_buy'] };
  if (config.webhookSigningAlg !== undefined) {
    document.webhook_signing = {
      supported: true,
      profile: 'adcp/webhook-signing/v1',
      algorithms: [config.webhookSigningAlg],
      legacy_hmac_fallback: true,
    };
  }
  if (config.requestSigning !== undefined) document.request_signing = config.requestSigning;
  const override = config.override;
  if (typeof override === 'function') document = override(structuredClone(document));
  else if (override !== undefined) document = merge(document, override);
  if (!isJsonObject(document)) throw new TypeError('capabilities override must give a JSON object');
  const sells = Array.isArray(document.supported_protocols) && document.supported_protocols.includes('media_buy');
  const account = isJsonObject(document.account) ? document.account : {};
  if (sells && account.supported_billing === undefined) {
    document.account = { ...account, supported_billing: ['operator'] };
  }
  const overridden = isJsonObject(document.adcp) ? document.adcp : {};
  document.adcp = { ...overridden, ...adcp };
  return document;
}

/**
 * The answer to one call (`protocols` filter): the blocks of protocols not asked for are left
 * out; `supported_protocols` narrows to the ones asked for that are supported (all of them when
 * none is).
 */
export function answerCapabilities(document: JsonObject, args: JsonObject): JsonObject {
  const wanted = args.protocols;
  if (!Array.isArray(wanted) || wanted.length === 0) return document;
  const supported = Array.isArray(document.supported_protocols) ? document.supported_protocols : [];
  const kept = supported.filter((p) => wanted.includes(p));
  const out: JsonObject = { ...document, supported_protocols: kept.length > 0 ? kept : supported };
  for (const block of PROTOCOL_BLOCKS) if (!wanted.includes(block)) delete out[block];
  return out;
}
