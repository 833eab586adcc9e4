import type { JsonObject } from '../core/types.js';
import { isJsonObject, jsonObjects } from '../core/json-object.js';
import type { Format } from '../schemas/generated/adcp-3.1.js';
import { adcpError } from '../server/tools/adcp-error.js';
import type { AdcpToolDefinition } from '../server/types.js';
import type { KitRecords } from './records.js';
import type { MediaBuySeller } from './seller.js';

/**
 * `build_creative` (build-creative-request.json, build-creative-response.json): the kit resolves
 * the source (a `creative_manifest` sent, or a synced creative by `creative_id`: library
 * retrieval) and answers one manifest per target format the seller accepts, in the single or the
 * multi-format shape. The kit makes no creative itself: a target in the source's own format is
 * the source's assets as they are; any other target (a transformation), or a brief alone (a
 * generation), goes to the seller's `build`, and without one is `UNSUPPORTED_FEATURE`. Estimates,
 * refinement and item or variant fan-out are `UNSUPPORTED_FEATURE` too.
 */

const MAX_TARGETS = 20;
const sameFormat = (a: unknown, b: unknown): boolean =>
  isJsonObject(a) && isJsonObject(b) && a.id === b.id && a.agent_url === b.agent_url;

interface BuildDeps {
  records: KitRecords;
  seller: MediaBuySeller;
  /** The formats this caller may target (seeded and the seller's). */
  formats: (principal: string) => Promise<Format[]>;
  /** A stored creative's assets as synced (sync_creatives keeps them beside the library record). */
  assetsOf: (body: JsonObject) => JsonObject | undefined;
}

export function buildTools(deps: BuildDeps): AdcpToolDefinition[] {
  const { records, seller } = deps;
  return [
    {
      name: 'build_creative',
      description:
        'Build a creative manifest per target format: from a manifest or a synced creative_id, or through the seller.',
      handler: async (args, ctx) => {
        for (const field of ['refine_from_build_variant_id', 'max_creatives', 'max_variants'] as const) {
          if (args[field] !== undefined) {
            throw adcpError('UNSUPPORTED_FEATURE', { message: `This seller does not support ${field}.`, field });
          }
        }
        if (args.mode === 'estimate') {
          throw adcpError('UNSUPPORTED_FEATURE', { message: 'This seller gives no build estimates.', field: 'mode' });
        }
        const single = isJsonObject(args.target_format_id);
        const targets = single ? [args.target_format_id as JsonObject] : jsonObjects(args.target_format_ids);
        if (targets.length === 0 || targets.length > MAX_TARGETS) {
          throw adcpError('INVALID_REQUEST', {
            message: `Name target_format_id, or 1 to ${MAX_TARGETS} target_format_ids.`,
            field: 'target_format_id',
          });
        }
        const accepted = await deps.formats(ctx.principal);
        for (const [i, target] of targets.entries()) {
          if (!accepted.some((f) => sameFormat(f.format_id, target))) {
            throw adcpError('FORMAT_NOT_SUPPORTED', {
              message: `This seller does not accept the format ${String(target.id)}.`,
              field: single ? 'target_format_id' : `target_format_ids[${i}]`,
            });
          }
        }
        let source: JsonObject | undefined;
        if (isJsonObject(args.creative_manifest)) source = args.creative_manifest;
        else if (typeof args.creative_id === 'string') {
          const stored = await records.get(ctx.principal, 'creative', args.creative_id);
          if (stored === undefined) throw adcpError('CREATIVE_NOT_FOUND', { field: 'creative_id' });
          source = { format_id: stored.body.format_id, assets: deps.assetsOf(stored.body) ?? {} };
        }
        const manifests: JsonObject[] = [];
        for (const target of targets) {
          if (source !== undefined && sameFormat(source.format_id, target)) {
            manifests.push({
              format_id: target,
              assets: structuredClone(isJsonObject(source.assets) ? source.assets : {}),
            });
            continue;
          }
          if (seller.build === undefined) {
            throw adcpError('UNSUPPORTED_FEATURE', {
              message:
                source === undefined
                  ? 'This seller does not generate creatives: send creative_manifest or a synced creative_id.'
                  : 'This seller does not transform creatives between formats: target the creative\u2019s own format.',
              field: source === undefined ? 'message' : 'target_format_id',
            });
          }
          const built = await seller.build({ request: args, source, target });
          manifests.push({ ...built, format_id: target });
        }
        return single ? { creative_manifest: manifests[0] as JsonObject } : { creative_manifests: manifests };
      },
    },
  ];
}
