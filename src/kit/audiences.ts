import type { JsonObject } from '../core/types.js';
import { isJsonObject, jsonObjects } from '../core/json-object.js';
import { adcpError } from '../server/tools/adcp-error.js';
import type { AdcpToolDefinition } from '../server/types.js';
import type { KitRecords } from './records.js';
import { accountRecords } from './account-records.js';

/**
 * First-party audiences (sync-audiences-request.json): owned by the request's account and keyed
 * there by `audience_id` (decision 0321), members kept by their
 * buyer-assigned `external_id` only (the hashed identifiers are matched, never stored), and the
 * rule that a package's `targeting_overlay.audience_include` / `audience_exclude` names a
 * registered audience of the buy's account (INVALID_REQUEST at its path, audience_buy_flow).
 */

/** Members one audience may hold in the kit's records. */
export const MAX_AUDIENCE_MEMBERS = 10_000;
const MATCHABLE = ['hashed_email', 'hashed_phone', 'platform_customer_id', 'uids'] as const;
const invalid = (message: string, field: string) => adcpError('INVALID_REQUEST', { message, field });

interface AudienceDeps {
  records: KitRecords;
  now: () => number;
  /** Matched members an audience needs to be `ready` (else `too_small`). */
  minimumSize: number;
  resolveAccount: (principal: string, ref: unknown, buying: boolean) => Promise<string>;
}

/** A package's audience overlay names only live audiences of the buy's account. */
export async function checkAudiences(
  records: KitRecords,
  principal: string,
  accountId: string,
  packages: JsonObject[],
  field = 'packages',
): Promise<void> {
  const audiences = accountRecords(records, principal, 'audience', accountId);
  for (const [i, pkg] of packages.entries()) {
    const overlay = isJsonObject(pkg.targeting_overlay) ? pkg.targeting_overlay : {};
    for (const list of ['audience_include', 'audience_exclude'] as const) {
      for (const [k, id] of (Array.isArray(overlay[list]) ? overlay[list] : []).entries()) {
        const stored = typeof id === 'string' ? await audiences.get(id) : undefined;
        if (stored === undefined || stored.body.deleted === true) {
          throw invalid(
            'The targeting names an audience that is not registered (sync_audiences).',
            `${field}[${i}].targeting_overlay.${list}[${k}]`,
          );
        }
      }
    }
  }
}

export function audienceTools(deps: AudienceDeps): AdcpToolDefinition[] {
  const { records, now, minimumSize } = deps;
  /** What the buyer sees of a stored audience (the member ids stay inside). */
  const shown = (body: JsonObject, action: string): JsonObject => {
    const { members: _members, matched: _matched, deleted: _deleted, ...rest } = body;
    return { ...rest, action };
  };
  return [
    {
      name: 'sync_audiences',
      description: 'Create, update, empty or delete first-party audiences; without audiences, list them.',
      handler: async (args, ctx) => {
        const accountId = await deps.resolveAccount(ctx.principal, args.account, false);
        const audiences = accountRecords(records, ctx.principal, 'audience', accountId);
        const stored = await audiences.list();
        if (args.audiences === undefined) {
          return { audiences: stored.filter((a) => a.body.deleted !== true).map((a) => shown(a.body, 'unchanged')) };
        }
        const results: JsonObject[] = [];
        const named = new Set<string>();
        for (const [i, entry] of jsonObjects(args.audiences).entries()) {
          const id = entry.audience_id;
          if (typeof id !== 'string' || id === '' || id.length > 256) {
            throw invalid('audience_id is required (at most 256 characters).', `audiences[${i}].audience_id`);
          }
          if (named.has(id)) throw invalid(`audience_id ${id} is listed twice.`, `audiences[${i}].audience_id`);
          named.add(id);
          const existing = await audiences.get(id);
          const live = existing !== undefined && existing.body.deleted !== true;
          if (entry.delete === true) {
            if (live) await audiences.put(id, { ...existing.body, deleted: true }, existing.version);
            results.push({ audience_id: id, action: live ? 'deleted' : 'unchanged' });
            continue;
          }
          // Members by external_id: matched when they carry a matchable identifier.
          const members = new Map<string, boolean>(
            live && isJsonObject(existing.body.members)
              ? Object.entries(existing.body.members as Record<string, boolean>)
              : [],
          );
          const before = JSON.stringify([...members]);
          for (const [j, member] of jsonObjects(entry.add).entries()) {
            if (typeof member.external_id !== 'string' || member.external_id === '') {
              throw invalid('Each member has an external_id.', `audiences[${i}].add[${j}].external_id`);
            }
            members.set(
              member.external_id,
              MATCHABLE.some((m) => member[m] !== undefined),
            );
          }
          for (const member of jsonObjects(entry.remove)) {
            if (typeof member.external_id === 'string') members.delete(member.external_id);
          }
          if (members.size > MAX_AUDIENCE_MEMBERS) {
            throw invalid(`An audience holds at most ${MAX_AUDIENCE_MEMBERS} members here.`, `audiences[${i}].add`);
          }
          const matched = [...members.values()].filter(Boolean).length;
          const added = jsonObjects(entry.add).length;
          const body: JsonObject = {
            audience_id: id,
            ...(typeof entry.name === 'string'
              ? { name: entry.name.slice(0, 256) }
              : live && existing.body.name !== undefined
                ? { name: existing.body.name }
                : {}),
            status: matched >= minimumSize ? 'ready' : 'too_small',
            uploaded_count: added,
            total_uploaded_count: members.size,
            matched_count: matched,
            effective_match_rate: members.size === 0 ? 0 : Math.round((matched / members.size) * 10_000) / 10_000,
            minimum_size: minimumSize,
            last_synced_at: new Date(now()).toISOString(),
            members: Object.fromEntries(members),
          };
          const unchanged = live && added === 0 && JSON.stringify([...members]) === before && entry.name === undefined;
          if (!unchanged && !(await audiences.put(id, body, existing?.version ?? 0))) {
            throw adcpError('CONFLICT', { message: `The audience ${id} changed meanwhile; sync again.` });
          }
          results.push(shown(unchanged ? existing.body : body, unchanged ? 'unchanged' : live ? 'updated' : 'created'));
        }
        if (args.delete_missing === true) {
          for (const other of stored) {
            if (named.has(other.id) || other.body.deleted === true) continue;
            await audiences.put(other.id, { ...other.body, deleted: true }, other.version);
            results.push({ audience_id: other.id, action: 'deleted' });
          }
        }
        return { audiences: results };
      },
    },
  ];
}
