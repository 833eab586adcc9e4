import type { JsonObject } from '../core/types.js';
import { isJsonObject, jsonObjects } from '../core/json-object.js';
import { adcpError } from '../server/tools/adcp-error.js';
import { AdcpToolError } from '../server/tools/tool-error.js';
import type { ToolContext } from '../server/types.js';
import { assignmentsOf } from './creative-list.js';
import type { KitRecord, KitRecords } from './records.js';
import type { MediaBuySeller } from './seller.js';

/**
 * `sync_creatives` (3.1 sync-creatives-request.json, decision 0311): upserts into the caller's
 * library, then the request options. `creative_ids` limits the sync to the creatives it names;
 * `assignments` assigns creatives to packages of the caller's buys through `update_media_buy`'s
 * own rules (one home: its CREATIVE_NOT_FOUND, PACKAGE_NOT_FOUND, INVALID_STATE and buy actions);
 * `delete_missing` archives the account's other creatives, never one a live package runs;
 * `validation_mode` `strict` (the default) refuses the whole call on the first problem, nothing
 * written, `lenient` writes what is valid and reports each problem on its creative (`failed`,
 * `assignment_errors`); `dry_run` checks everything and answers what would change, writing
 * nothing. Everything is checked before anything is written.
 */

/** Assignments one call may carry (3.1 sets no bound; 3.2 `assignment_operations` allows 500). */
export const MAX_ASSIGNMENTS = 500;
const MAX_CREATIVES = 100;

export interface CreativeSyncDeps {
  records: KitRecords;
  seller: MediaBuySeller;
  now: () => number;
  /** The account id an account reference names. */
  accountOf: (ref: JsonObject) => string;
  /**
   * `update_media_buy` itself: `pending` creatives count as found; `write: false` only checks.
   * Assignments go through it so that they follow its rules and answer its errors.
   */
  updateBuy: (
    args: JsonObject,
    ctx: ToolContext,
    options: { pending?: ReadonlySet<string>; write?: boolean },
  ) => Promise<unknown>;
  /** Re-derives the status of the caller's buys waiting for creatives. */
  settleWaiting: (principal: string) => Promise<void>;
}

/** One problem, as a per-item error (core/error.json). */
type Problem = JsonObject & { code: string; message: string };

/** A standard code's problem, its registered recovery filled in. */
const problem = (code: string, message: string, field: string): Problem => ({
  ...(adcpError(code, { message, field }).toAdcpError() as unknown as JsonObject),
  code,
  message,
});

const invalid = (message: string, field: string) =>
  new AdcpToolError('INVALID_REQUEST', message, { field, recovery: 'correctable' });

/** A thrown rule as the problem it reports, its `field` moved by `at` to the request path it came from. */
function problemOf(error: unknown, at: (field: string | undefined) => string): Problem {
  if (!(error instanceof AdcpToolError)) throw error;
  const { field, ...rest } = error.toAdcpError() as unknown as Problem;
  return { ...rest, field: at(typeof field === 'string' ? field : undefined) };
}

const refusal = (problem: Problem): AdcpToolError =>
  new AdcpToolError(problem.code, problem.message, {
    ...(typeof problem.field === 'string' ? { field: problem.field } : {}),
    ...(problem.recovery === 'transient' || problem.recovery === 'correctable' || problem.recovery === 'terminal'
      ? { recovery: problem.recovery }
      : {}),
    ...(isJsonObject(problem.details) ? { details: problem.details } : {}),
  });

/** One creative's planned outcome: what the answer says of it, and what would be written. */
interface Planned {
  result: JsonObject;
  write?: { id: string; body: JsonObject; expected: number };
}

/** One entry of `assignments`, resolved to its buy. */
interface Assignment {
  index: number;
  creativeId: string;
  packageId: string;
  buyId?: string;
  entry: JsonObject;
  problem?: Problem;
}

/** A package's assignments with `entry` upserted (an entry per creative: the newer one wins). */
function upserted(current: unknown, entries: JsonObject[]): JsonObject[] {
  const merged = jsonObjects(current).filter((a) => !entries.some((e) => e.creative_id === a.creative_id));
  return [...merged, ...entries];
}

/** The `update_media_buy` request that assigns `entries` (package id -> assignments) on `buy`. */
function assignRequest(buy: KitRecord, entries: Map<string, JsonObject[]>, account: unknown): JsonObject {
  const packages = jsonObjects(buy.body.packages);
  return {
    media_buy_id: buy.id,
    ...(account === undefined ? {} : { account }),
    packages: [...entries].map(([packageId, list]) => ({
      package_id: packageId,
      creative_assignments: upserted(packages.find((p) => p.package_id === packageId)?.creative_assignments, list),
    })),
  };
}

/** The assignment entry a package keeps (core/creative-assignment.json: creative, weight, placements). */
const entryOf = (a: JsonObject): JsonObject => ({
  creative_id: a.creative_id,
  ...(typeof a.weight === 'number' ? { weight: a.weight } : {}),
  ...(Array.isArray(a.placement_ids) ? { placement_ids: a.placement_ids } : {}),
});

export function syncCreatives(deps: CreativeSyncDeps) {
  const { records, seller, now } = deps;

  return async (args: JsonObject, ctx: ToolContext): Promise<JsonObject> => {
    const principal = ctx.principal;
    const creatives = jsonObjects(args.creatives);
    if (creatives.length === 0 || creatives.length > MAX_CREATIVES)
      throw invalid(`creatives must hold 1 to ${MAX_CREATIVES} creatives.`, 'creatives');
    const lenient = args.validation_mode === 'lenient';
    const dryRun = args.dry_run === true;
    const scope = Array.isArray(args.creative_ids) ? new Set(args.creative_ids) : undefined;
    if (args.delete_missing === true && scope !== undefined) {
      // sync-creatives-request.json: "Invalid when creative_ids is provided".
      throw invalid(
        'delete_missing applies to the whole library; it cannot be combined with creative_ids.',
        'delete_missing',
      );
    }
    const requested = jsonObjects(args.assignments);
    if (requested.length > MAX_ASSIGNMENTS)
      throw invalid(`assignments may hold at most ${MAX_ASSIGNMENTS} entries.`, 'assignments');
    const ref = isJsonObject(args.account) ? args.account : {};
    const owner = deps.accountOf(ref);
    const at = new Date(now()).toISOString();
    /** A problem refuses the whole call in strict mode; in lenient mode the caller reports it. */
    const report = (problem: Problem): Problem => {
      if (!lenient) throw refusal(problem);
      return problem;
    };

    // 1. The creatives sent: each checked, its write planned.
    const plans: Planned[] = [];
    const sent = new Set<string>();
    const valid = new Set<string>();
    for (const [i, creative] of creatives.entries()) {
      const id = creative.creative_id;
      const failed = (refused: Problem) => {
        plans.push({
          result: { creative_id: typeof id === 'string' ? id : '', action: 'failed', errors: [report(refused)] },
        });
      };
      if (typeof id !== 'string' || id === '') {
        failed(problem('INVALID_REQUEST', 'creative_id is required.', `creatives[${i}].creative_id`));
        continue;
      }
      if (sent.has(id)) {
        failed(problem('INVALID_REQUEST', `creative_id ${id} is sent twice.`, `creatives[${i}].creative_id`));
        continue;
      }
      sent.add(id);
      const existing = await records.get(principal, 'creative', id);
      if (scope !== undefined && !scope.has(id)) {
        plans.push({
          result: {
            creative_id: id,
            action: 'unchanged',
            ...(typeof existing?.body.status === 'string' ? { status: existing.body.status } : {}),
            warnings: ['Not named in creative_ids, so not synced.'],
          },
        });
        continue;
      }
      const verdict = (await seller.checkCreative?.(creative, { principal, accountId: owner })) ?? true;
      if (verdict !== true) {
        const field = verdict.field === undefined ? `creatives[${i}]` : `creatives[${i}].${verdict.field}`;
        failed({ code: verdict.code, message: verdict.message, field });
        continue;
      }
      const status =
        existing?.body.status === 'approved' || seller.creativeApproval !== 'manual' ? 'approved' : 'pending_review';
      const body: JsonObject = {
        creative_id: id,
        name: typeof creative.name === 'string' && creative.name !== '' ? creative.name.slice(0, 256) : id,
        format_id: isJsonObject(creative.format_id)
          ? creative.format_id
          : { agent_url: 'https://creative.adcontextprotocol.org', id: 'unknown' },
        status,
        created_date: typeof existing?.body.created_date === 'string' ? existing.body.created_date : at,
        updated_date: at,
        // What list_creatives filters on: the buyer's tags and the account the creative was synced for.
        ...(Array.isArray(creative.tags) ? { tags: creative.tags.filter((t) => typeof t === 'string') } : {}),
        kit_account_id: owner,
        // Kept for build_creative's library retrieval, never listed.
        ...(isJsonObject(creative.assets) ? { kit_assets: creative.assets } : {}),
      };
      valid.add(id);
      plans.push({
        result: { creative_id: id, action: existing === undefined ? 'created' : 'updated', status },
        write: { id, body, expected: existing?.version ?? 0 },
      });
    }

    // 2. The assignments: each resolved to its buy and checked alone by update_media_buy's rules.
    const buys = requested.length > 0 || args.delete_missing === true ? await records.list(principal, 'media_buy') : [];
    const assignments: Assignment[] = [];
    for (const [k, a] of requested.entries()) {
      const creativeId = String(a.creative_id);
      const packageId = String(a.package_id);
      const assignment: Assignment = { index: k, creativeId, packageId, entry: entryOf(a) };
      assignments.push(assignment);
      if (sent.has(creativeId) && !valid.has(creativeId) && !(scope !== undefined && !scope.has(creativeId))) {
        assignment.problem = report(
          problem(
            'INVALID_REQUEST',
            `Creative ${creativeId} failed in this sync, so it is not assigned.`,
            `assignments[${k}].creative_id`,
          ),
        );
        continue;
      }
      const holders = buys.filter((b) => jsonObjects(b.body.packages).some((p) => p.package_id === packageId));
      if (holders.length !== 1) {
        assignment.problem = report(
          problem(
            'PACKAGE_NOT_FOUND',
            holders.length === 0
              ? `No package ${packageId} in your media buys.`
              : `Package ${packageId} is in several of your media buys.`,
            `assignments[${k}].package_id`,
          ),
        );
        continue;
      }
      const buy = holders[0] as KitRecord;
      assignment.buyId = buy.id;
      try {
        await deps.updateBuy(assignRequest(buy, new Map([[packageId, [assignment.entry]]]), args.account), ctx, {
          pending: valid,
          write: false,
        });
      } catch (error) {
        assignment.problem = report(
          problemOf(error, (field) =>
            field?.startsWith('account') === true
              ? field
              : field?.endsWith('creative_id') === true
                ? `assignments[${k}].creative_id`
                : `assignments[${k}].package_id`,
          ),
        );
      }
    }

    // 3. delete_missing: the account's other creatives are archived, unless a live package runs them.
    const archives: Planned[] = [];
    if (args.delete_missing === true) {
      const live = assignmentsOf(buys);
      const assigning = new Set(assignments.filter((a) => a.problem === undefined).map((a) => a.creativeId));
      for (const other of await records.list(principal, 'creative')) {
        if (sent.has(other.id) || other.body.kit_account_id !== owner || other.body.status === 'archived') continue;
        if ((live.get(other.id)?.count ?? 0) > 0 || assigning.has(other.id)) {
          const refused = report(
            problem(
              'INVALID_STATE',
              `Creative ${other.id} is assigned to a live package; unassign it before it can be archived.`,
              'delete_missing',
            ),
          );
          archives.push({ result: { creative_id: other.id, action: 'failed', errors: [refused] } });
          continue;
        }
        archives.push({
          result: { creative_id: other.id, action: 'deleted' },
          write: {
            id: other.id,
            body: { ...other.body, status: 'archived', updated_date: at },
            expected: other.version,
          },
        });
      }
    }

    // 4. The answer: each creative's result, with its assignments (and a library creative assigned alone).
    const results = plans.map((p) => p.result);
    for (const a of assignments) {
      // The first result of an id is its own (a second one is the duplicate's failure).
      let result = results.find((r) => r.creative_id === a.creativeId);
      if (result === undefined) {
        const stored = await records.get(principal, 'creative', a.creativeId);
        result = {
          creative_id: a.creativeId,
          action: 'unchanged',
          ...(typeof stored?.body.status === 'string' ? { status: stored.body.status } : {}),
        };
        results.push(result);
      }
      const assigned = (result.assigned_to ??= []) as string[];
      if (a.problem === undefined) {
        if (!assigned.includes(a.packageId)) assigned.push(a.packageId);
      } else {
        const errors = (result.assignment_errors ??= {}) as JsonObject;
        errors[a.packageId] = a.problem.message;
      }
    }
    results.push(...archives.map((p) => p.result));
    if (dryRun) return { dry_run: true, creatives: results };

    // 5. The writes, once everything is checked: creatives, archives, then each buy's assignments.
    for (const { write } of [...plans, ...archives]) {
      if (write === undefined) continue;
      if (!(await records.put(principal, 'creative', write.id, write.body, write.expected))) {
        throw adcpError('CONFLICT', { message: `The creative ${write.id} changed meanwhile; sync again.` });
      }
    }
    const byBuy = new Map<string, Assignment[]>();
    for (const a of assignments) {
      if (a.problem !== undefined || a.buyId === undefined) continue;
      byBuy.set(a.buyId, [...(byBuy.get(a.buyId) ?? []), a]);
    }
    for (const [buyId, list] of byBuy) {
      const buy = await records.get(principal, 'media_buy', buyId);
      if (buy === undefined) continue;
      const entries = new Map<string, JsonObject[]>();
      for (const a of list) entries.set(a.packageId, upserted(entries.get(a.packageId), [a.entry]));
      await deps.updateBuy(assignRequest(buy, entries, args.account), ctx, { pending: valid });
    }
    // A buy waiting for creatives may now start.
    await deps.settleWaiting(principal);
    return { creatives: results };
  };
}
