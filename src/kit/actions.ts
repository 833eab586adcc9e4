import type { JsonObject } from '../core/types.js';
import { isJsonObject, jsonObjects } from '../core/json-object.js';
import type {
  MediaBuyActionMode,
  MediaBuyAvailableAction,
  MediaBuyStatus,
  MediaBuyValidAction,
  Product,
  ProductAllowedAction,
} from '../schemas/generated/adcp-3.1.js';
import { AdcpToolError } from '../server/tools/tool-error.js';

/**
 * A buy's actions (3.1): the products' `allowed_actions[]` templates resolved onto the buy at
 * creation, answered as `available_actions[]` for the buy's current status, and enforced on
 * `update_media_buy` with `ACTION_NOT_ALLOWED` (enums/media-buy-valid-action.json for the
 * action-to-field mapping, error-details/action-not-allowed.json). Decision 0210.
 */

/** Every action of enums/media-buy-valid-action.json, in its order. */
export const MEDIA_BUY_ACTIONS = [
  'pause',
  'resume',
  'cancel',
  'extend_flight',
  'shorten_flight',
  'update_flight_dates',
  'increase_budget',
  'decrease_budget',
  'reallocate_budget',
  'update_targeting',
  'update_pacing',
  'update_frequency_caps',
  'replace_creative',
  'update_creative_assignments',
  'remove_creative',
  'add_packages',
  'remove_packages',
  'update_budget',
  'update_dates',
  'update_packages',
  'sync_creatives',
] as const satisfies readonly MediaBuyValidAction[];

const MODES = [
  'self_serve',
  'conditional_self_serve',
  'requires_approval',
] as const satisfies readonly MediaBuyActionMode[];
const STATUSES = [
  'pending_creatives',
  'pending_start',
  'active',
  'paused',
  'completed',
  'rejected',
  'canceled',
] as const satisfies readonly MediaBuyStatus[];
/** Where an action without `allowed_statuses` is permitted (core/product-allowed-action.json). */
const NON_TERMINAL: readonly string[] = ['pending_creatives', 'pending_start', 'active', 'paused'];

/** The legacy coarse actions and the finer ones each rolls up (`enumMetadata[<value>].rollup`). */
const ROLLUP: Record<string, readonly string[]> = {
  update_budget: ['increase_budget', 'decrease_budget', 'reallocate_budget'],
  update_dates: ['extend_flight', 'shorten_flight', 'update_flight_dates'],
  update_packages: [
    'update_targeting',
    'update_pacing',
    'update_frequency_caps',
    'reallocate_budget',
    'remove_packages',
  ],
  sync_creatives: ['replace_creative', 'update_creative_assignments', 'remove_creative'],
};

/** One action a buy keeps: the product template resolved to the single mode in effect. */
export interface BuyAction {
  action: MediaBuyValidAction;
  mode: MediaBuyActionMode;
  /** Where it is permitted; absent: every non-terminal status. */
  allowed_statuses?: string[];
  sla?: { response_max?: string; completion_max?: string };
  terms_ref?: string;
}

/** What a buy stores of its products' templates (`kit_actions`, never shown): the resolved surface and every action a product declared. */
export interface BuyActions {
  resolved: BuyAction[];
  declared: string[];
}

/** The restrictiveness of a mode: the most restrictive of several products' modes applies. */
const rank = (mode: string) => (mode === 'self_serve' ? 0 : mode === 'conditional_self_serve' ? 1 : 2);

/** A product's template keyed by action (the first entry of a repeated action wins: the array is keyed by action). */
function templateOf(product: Product): Map<string, ProductAllowedAction> | undefined {
  const list = (product as { allowed_actions?: unknown }).allowed_actions;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const byAction = new Map<string, ProductAllowedAction>();
  for (const entry of list as ProductAllowedAction[])
    if (!byAction.has(entry.action)) byAction.set(entry.action, entry);
  return byAction;
}

/**
 * The actions a new buy gets from its packages' products: undefined when no product declares
 * `allowed_actions` (the buy then has no structured surface: `valid_actions` only, nothing
 * enforced). Otherwise an action is on the buy when every declaring product declares it, in the
 * first mode each lists, the most restrictive of those; its statuses are those all allow; its
 * `sla` and `terms_ref` are the first declaring product's.
 */
export function resolveBuyActions(products: readonly Product[]): BuyActions | undefined {
  const templates = products.map(templateOf).filter((t) => t !== undefined);
  const [first, ...others] = templates;
  if (first === undefined) return undefined;
  const declared = new Set(templates.flatMap((t) => [...t.keys()]));
  const resolved: BuyAction[] = [];
  for (const [action, entry] of first) {
    const entries = [entry, ...others.map((t) => t.get(action))];
    if (entries.some((e) => e === undefined)) continue;
    const all = entries as ProductAllowedAction[];
    const mode = all.map((e) => e.modes[0] ?? 'requires_approval').reduce((a, b) => (rank(b) > rank(a) ? b : a));
    let statuses: string[] | undefined;
    for (const e of all) {
      if (e.allowed_statuses === undefined) continue;
      statuses =
        statuses === undefined
          ? [...e.allowed_statuses]
          : statuses.filter((s) => e.allowed_statuses!.includes(s as MediaBuyStatus));
    }
    resolved.push({
      action: entry.action,
      mode,
      ...(statuses === undefined ? {} : { allowed_statuses: statuses }),
      ...(entry.sla === undefined ? {} : { sla: { ...entry.sla } }),
      ...(entry.terms_ref === undefined ? {} : { terms_ref: entry.terms_ref }),
    });
  }
  return { resolved, declared: [...declared] };
}

/** Whether the lifecycle lets an action happen in a status at all: pause from a live status, resume from paused. */
function lifecyclePermits(action: string, status: string): boolean {
  if (!NON_TERMINAL.includes(status)) return false;
  if (action === 'pause') return status !== 'paused';
  if (action === 'resume') return status === 'paused';
  return true;
}

const permittedIn = (entry: BuyAction, status: string) =>
  (entry.allowed_statuses ?? NON_TERMINAL).includes(status) && lifecyclePermits(entry.action, status);

/** The buy's `available_actions[]` in its current status (core/media-buy-available-action.json). */
export function availableActions(actions: BuyActions, status: string): MediaBuyAvailableAction[] {
  return actions.resolved
    .filter((entry) => permittedIn(entry, status))
    .map(({ allowed_statuses: _statuses, ...available }) => available);
}

/** The 3.0 flat vocabulary an action is written in within `valid_actions` (its coarse value, if any). */
export function coarseAction(action: string): string {
  for (const [coarse, fine] of Object.entries(ROLLUP)) if (fine.includes(action)) return coarse;
  return action;
}

/** The entry of the buy's surface that covers an action: its own, else a coarse one rolling it up. */
function entryFor(actions: BuyActions, action: string): BuyAction | undefined {
  return (
    actions.resolved.find((e) => e.action === action) ??
    actions.resolved.find((e) => ROLLUP[e.action]?.includes(action) === true)
  );
}

const declares = (actions: BuyActions, action: string) =>
  actions.declared.includes(action) || actions.declared.some((d) => ROLLUP[d]?.includes(action) === true);

const creativeIds = (assignments: unknown) =>
  new Set(
    jsonObjects(assignments)
      .map((a) => a.creative_id)
      .filter((id) => typeof id === 'string'),
  );

/**
 * The actions an `update_media_buy` request performs on a buy, per the normative action-to-field
 * mapping (`enumMetadata[<action>].update_fields`); a field that changes nothing performs none.
 * `now` is the time of `asap`.
 */
export function requestedActions(args: JsonObject, buy: JsonObject, now: number): MediaBuyValidAction[] {
  const found = new Set<MediaBuyValidAction>();
  const status = String(buy.status);
  if (args.canceled === true) found.add('cancel');
  if (args.paused === true && status !== 'paused') found.add('pause');
  if (args.paused === false && status === 'paused') found.add('resume');
  const start =
    args.start_time === 'asap' ? now : typeof args.start_time === 'string' ? Date.parse(args.start_time) : NaN;
  const end = typeof args.end_time === 'string' ? Date.parse(args.end_time) : NaN;
  const currentStart = Date.parse(String(buy.start_time));
  const currentEnd = Date.parse(String(buy.end_time));
  if (Number.isFinite(start) && start !== currentStart) found.add('update_flight_dates');
  else if (Number.isFinite(end) && end > currentEnd) found.add('extend_flight');
  else if (Number.isFinite(end) && end < currentEnd) found.add('shorten_flight');
  const packages = jsonObjects(buy.packages);
  const budgetMoves: number[] = [];
  for (const change of jsonObjects(args.packages)) {
    const pkg = packages.find((p) => p.package_id === change.package_id);
    if (pkg === undefined) continue; // PACKAGE_NOT_FOUND, answered by the update itself
    if (typeof change.budget === 'number' && change.budget !== pkg.budget) {
      budgetMoves.push(change.budget - Number(pkg.budget ?? 0));
    }
    if (isJsonObject(change.targeting_overlay)) {
      const { frequency_cap: cap, ...rest } = change.targeting_overlay;
      if (cap !== undefined) found.add('update_frequency_caps');
      if (Object.keys(rest).length > 0) found.add('update_targeting');
    }
    for (const field of [
      'keyword_targets_add',
      'keyword_targets_remove',
      'negative_keywords_add',
      'negative_keywords_remove',
    ]) {
      if (change[field] !== undefined) found.add('update_targeting');
    }
    if (change.pacing !== undefined && change.pacing !== pkg.pacing) found.add('update_pacing');
    if (change.creatives !== undefined) found.add('replace_creative');
    if (Array.isArray(change.creative_assignments)) {
      const before = creativeIds(pkg.creative_assignments);
      const after = creativeIds(change.creative_assignments);
      const removesOnly = after.size < before.size && [...after].every((id) => before.has(id));
      const same = after.size === before.size && [...after].every((id) => before.has(id));
      if (removesOnly) found.add('remove_creative');
      else if (!same) found.add('update_creative_assignments');
    }
    if (change.canceled === true && pkg.canceled !== true) found.add('remove_packages');
  }
  const net = budgetMoves.reduce((a, b) => a + b, 0);
  if (budgetMoves.length > 1 && Math.abs(net) < 0.005) found.add('reallocate_budget');
  else for (const move of budgetMoves) found.add(move > 0 ? 'increase_budget' : 'decrease_budget');
  if (Array.isArray(args.new_packages) && args.new_packages.length > 0) found.add('add_packages');
  return MEDIA_BUY_ACTIONS.filter((a) => found.has(a));
}

/**
 * Refuses the first requested action the buy's surface does not let the buyer perform directly
 * now: `not_supported_on_product` (no product declared it; terminal), `not_supported_on_buy` (a
 * product declared it, the buy's resolution left it out; terminal), `wrong_status` (not in this
 * status; correctable), `mode_mismatch` (its mode is `requires_approval`, which a direct update
 * cannot satisfy; correctable). The details echo the buy's `available_actions[]`.
 */
export function enforceActions(actions: BuyActions, requested: readonly string[], status: string): void {
  for (const action of requested) {
    const entry = entryFor(actions, action);
    let reason: string | undefined;
    if (entry === undefined) reason = declares(actions, action) ? 'not_supported_on_buy' : 'not_supported_on_product';
    else if (!permittedIn(entry, status)) reason = 'wrong_status';
    else if (entry.mode !== 'self_serve' && entry.mode !== 'conditional_self_serve') reason = 'mode_mismatch';
    if (reason === undefined) continue;
    const terminal = reason === 'not_supported_on_product' || reason === 'not_supported_on_buy';
    const why: Record<string, string> = {
      not_supported_on_product: `this buy's products do not allow ${action}`,
      not_supported_on_buy: `${action} is not available on this buy`,
      wrong_status: `${action} is not available while the buy is ${status}`,
      mode_mismatch: `${action} requires the seller's approval; it cannot be applied by a direct update`,
    };
    throw new AdcpToolError('ACTION_NOT_ALLOWED', `Action not allowed: ${why[reason]}.`, {
      // The code's description and the available_actions storyboard: terminal for this buy when
      // the action is not supported, correctable otherwise (decision 0210).
      recovery: terminal ? 'terminal' : 'correctable',
      details: {
        attempted_action: action,
        reason,
        currently_available_actions: availableActions(actions, status),
      },
    });
  }
}

/** ISO 8601 duration (core/sla-window.json). */
const DURATION = /^P(?!$)(\d+Y)?(\d+M)?(\d+D)?(T(\d+H)?(\d+M)?(\d+S)?)?$/;

/**
 * Checks a fixture's `allowed_actions` (core/product-allowed-action.json, unique by action);
 * returns the problem, or undefined when it is absent or well-formed.
 */
export function allowedActionsProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.length > MEDIA_BUY_ACTIONS.length) {
    return `allowed_actions must list 1 to ${MEDIA_BUY_ACTIONS.length} actions`;
  }
  const seen = new Set<unknown>();
  for (const [i, entry] of value.entries()) {
    const at = `allowed_actions[${i}]`;
    if (!isJsonObject(entry)) return `${at} must be an object`;
    const extra = Object.keys(entry).find(
      (k) => !['action', 'modes', 'allowed_statuses', 'sla', 'terms_ref'].includes(k),
    );
    if (extra !== undefined) return `${at} has an unknown field ${extra.slice(0, 40)}`;
    if (!(MEDIA_BUY_ACTIONS as readonly unknown[]).includes(entry.action))
      return `${at}.action is not a media buy action`;
    if (seen.has(entry.action)) return `${at}.action ${String(entry.action)} is listed twice`;
    seen.add(entry.action);
    if (!isEnumList(entry.modes, MODES)) return `${at}.modes must list distinct modes (${MODES.join(', ')})`;
    if (entry.allowed_statuses !== undefined && !isEnumList(entry.allowed_statuses, STATUSES)) {
      return `${at}.allowed_statuses must list distinct media buy statuses`;
    }
    if (entry.sla !== undefined) {
      const sla = entry.sla;
      if (!isJsonObject(sla) || Object.keys(sla).some((k) => k !== 'response_max' && k !== 'completion_max')) {
        return `${at}.sla holds response_max and completion_max only`;
      }
      for (const k of ['response_max', 'completion_max']) {
        if (sla[k] !== undefined && !(typeof sla[k] === 'string' && sla[k].length <= 64 && DURATION.test(sla[k]))) {
          return `${at}.sla.${k} must be an ISO 8601 duration`;
        }
      }
    }
    if (entry.terms_ref !== undefined && !(typeof entry.terms_ref === 'string' && entry.terms_ref.length <= 512)) {
      return `${at}.terms_ref must be a string of at most 512 characters`;
    }
  }
  return undefined;
}

function isEnumList(value: unknown, allowed: readonly string[]): boolean {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((v) => typeof v === 'string' && allowed.includes(v)) &&
    new Set(value).size === value.length
  );
}

/** `valid_actions` (the deprecated flat list) of a buy with a surface: what it may do directly now, in the coarse 3.0 words. */
export function flatActions(actions: BuyActions, status: string): string[] {
  const direct = availableActions(actions, status).filter((a) => a.mode !== 'requires_approval');
  return [...new Set(direct.map((a) => coarseAction(a.action)))];
}
