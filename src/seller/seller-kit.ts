import type { JsonObject } from '../core/types.js';
import { createMediaBuyKit, type MediaBuyKit } from '../kit/media-buy-kit.js';
import type { Format, Product } from '../schemas/generated/adcp-3.1.js';
import type { ControllerScenario } from '../server/tools/test-controller.js';
import type { AdcpToolDefinition } from '../server/types.js';
import { CATALOG, productToWire, searchCatalog } from './catalog.js';
import type { SellerDb } from './seller-db.js';
import { sellerKitRecords } from './seller-kit-records.js';

/** The kit's tools the reference seller serves as they are (its own tools keep the rest). */
const KIT_TOOLS = [
  'update_media_buy',
  'sync_accounts',
  'list_accounts',
  'sync_governance',
  'list_creative_formats',
  'provide_performance_feedback',
];

/** The kit's controller scenarios the seller's own (sandbox-controller.ts) do not cover. */
const KIT_SCENARIOS = ['force_account_status', 'force_create_media_buy_arm', 'seed_account'];

/** Every format a catalog product names, once (list_creative_formats). */
function catalogFormats(): Format[] {
  const seen = new Map<string, Format>();
  for (const product of CATALOG) {
    for (const id of product.format_ids) {
      if (!seen.has(id.id)) seen.set(id.id, { format_id: id, name: id.id.replaceAll('_', ' ') });
    }
  }
  return [...seen.values()];
}

/**
 * The media-buy kit over the reference seller's own state: its catalog as inventory, its
 * formats, and the kit's records kept in the seller's database (seller-kit-records.ts).
 */
export function sellerKit(db: SellerDb, now: () => number): MediaBuyKit {
  return createMediaBuyKit({
    records: sellerKitRecords(db, now),
    now,
    seller: {
      products: ({ brief, filters }) =>
        searchCatalog(brief, filters).map((p) => productToWire(p) as unknown as Product),
      formats: catalogFormats(),
    },
  });
}

/** The kit's tools the seller serves, each behind the seller's failure injection. */
export function kitTools(
  kit: MediaBuyKit,
  fault: (tool: string, args: JsonObject, headers: import('node:http').IncomingMessage['headers']) => void,
): AdcpToolDefinition[] {
  return kit.tools
    .filter((tool) => KIT_TOOLS.includes(tool.name))
    .map((tool) => ({
      ...tool,
      handler: (args, ctx) => {
        fault(tool.name, args, ctx.headers);
        return tool.handler(args, ctx);
      },
    }));
}

/** The kit's scenarios the seller adds to its own. */
export function kitScenarios(kit: MediaBuyKit): Record<string, ControllerScenario> {
  return Object.fromEntries(Object.entries(kit.scenarios).filter(([name]) => KIT_SCENARIOS.includes(name)));
}
