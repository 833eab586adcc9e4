import { createHash } from 'node:crypto';
import type { JsonObject } from '../core/types.js';
import { jsonObjects } from '../core/json-object.js';
import { adcpError } from '../server/tools/adcp-error.js';
import type { AdcpToolDefinition } from '../server/types.js';
import type { KitRecords } from './records.js';
import { accountRecords } from './account-records.js';

/**
 * `sync_catalogs` (sync-catalogs-request.json): the buyer's catalogs, owned by the request's
 * account and keyed there by `catalog_id` (decision 0321). Inline items are counted and approved; the kit never fetches a feed `url` (it
 * keeps the reference and says so). Without `catalogs` the call lists them (`catalog_ids` to
 * narrow); with them, `catalog_ids` limits what is synced and what `delete_missing` removes;
 * `delete_missing` and `dry_run` as the schema describes.
 */

/** Inline items one catalog may carry to the kit. */
export const MAX_CATALOG_ITEMS = 10_000;
const invalid = (message: string, field: string) => adcpError('INVALID_REQUEST', { message, field });

interface CatalogDeps {
  records: KitRecords;
  now: () => number;
  resolveAccount: (principal: string, ref: unknown, buying: boolean) => Promise<string>;
}

export function catalogTools(deps: CatalogDeps): AdcpToolDefinition[] {
  const { records, now } = deps;
  const shown = (body: JsonObject, action: string): JsonObject => {
    const { deleted: _deleted, digest: _digest, ...rest } = body;
    return { ...rest, action };
  };
  return [
    {
      name: 'sync_catalogs',
      description: 'Create, update or delete product, store, offering ... catalogs; without catalogs, list them.',
      handler: async (args, ctx) => {
        const accountId = await deps.resolveAccount(ctx.principal, args.account, false);
        const catalogs = accountRecords(records, ctx.principal, 'catalog', accountId);
        const stored = (await catalogs.list()).filter((c) => c.body.deleted !== true);
        const wanted = Array.isArray(args.catalog_ids) ? new Set(args.catalog_ids) : undefined;
        if (args.catalogs === undefined) {
          return {
            catalogs: stored
              .filter((c) => wanted === undefined || wanted.has(c.id))
              .map((c) => shown(c.body, 'unchanged')),
          };
        }
        const dryRun = args.dry_run === true;
        const results: JsonObject[] = [];
        const named = new Set<string>();
        for (const [i, catalog] of jsonObjects(args.catalogs).entries()) {
          const id = catalog.catalog_id;
          if (typeof id !== 'string' || id === '' || id.length > 256) {
            throw invalid('catalog_id is required (at most 256 characters).', `catalogs[${i}].catalog_id`);
          }
          if (named.has(id)) throw invalid(`catalog_id ${id} is listed twice.`, `catalogs[${i}].catalog_id`);
          named.add(id);
          // "When provided, only these catalogs will be created/updated" (catalog_ids): one it
          // leaves out stays as it is, and one it leaves out that does not exist is not created.
          if (wanted !== undefined && !wanted.has(id)) {
            const kept = stored.find((c) => c.id === id);
            const message = 'Not named in catalog_ids, so not synced.';
            results.push(
              kept === undefined
                ? { catalog_id: id, action: 'failed', errors: [{ code: 'INVALID_REQUEST', message }] }
                : { ...shown(kept.body, 'unchanged'), warnings: [message] },
            );
            continue;
          }
          const items = jsonObjects(catalog.items);
          if (items.length > MAX_CATALOG_ITEMS) {
            throw adcpError('CATALOG_LIMIT_EXCEEDED', {
              message: `A catalog carries at most ${MAX_CATALOG_ITEMS} inline items here.`,
              field: `catalogs[${i}].items`,
            });
          }
          if (items.length > 0 && catalog.url !== undefined) {
            throw invalid('A catalog has inline items or a feed url, not both.', `catalogs[${i}].url`);
          }
          const existing = await catalogs.get(id);
          const live = existing !== undefined && existing.body.deleted !== true;
          const digest = createHash('sha256').update(JSON.stringify(catalog)).digest('hex');
          const unchanged = live && existing.body.digest === digest;
          const body: JsonObject = {
            catalog_id: id,
            type: String(catalog.type),
            ...(typeof catalog.name === 'string' ? { name: catalog.name.slice(0, 256) } : {}),
            ...(typeof catalog.url === 'string' ? { url: catalog.url } : {}),
            item_count: items.length,
            items_approved: items.length,
            items_pending: 0,
            items_rejected: 0,
            last_synced_at: new Date(now()).toISOString(),
            ...(typeof catalog.url === 'string'
              ? { warnings: ['This seller does not fetch feeds: the url is kept, no items are counted from it.'] }
              : {}),
            digest,
          };
          if (!unchanged && !dryRun && !(await catalogs.put(id, body, existing?.version ?? 0))) {
            throw adcpError('CONFLICT', { message: `The catalog ${id} changed meanwhile; sync again.` });
          }
          results.push(shown(unchanged ? existing.body : body, unchanged ? 'unchanged' : live ? 'updated' : 'created'));
        }
        if (args.delete_missing === true) {
          // "Other catalogs on the account are unaffected" by a sync scoped with catalog_ids.
          for (const other of stored) {
            if (named.has(other.id) || (wanted !== undefined && !wanted.has(other.id))) continue;
            if (!dryRun) await catalogs.put(other.id, { ...other.body, deleted: true }, other.version);
            results.push({ catalog_id: other.id, action: 'deleted' });
          }
        }
        return { ...(dryRun ? { dry_run: true } : {}), catalogs: results };
      },
    },
  ];
}
