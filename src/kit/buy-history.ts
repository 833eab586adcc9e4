import type { JsonObject } from '../core/types.js';
import { isJsonObject, jsonObjects } from '../core/json-object.js';
import { AdcpToolError } from '../server/tools/tool-error.js';

/**
 * A media buy's revision history (get-media-buys-response.json `history[]`, decision 0319): one
 * entry per revision, appended in the same write that makes the revision (`kit_history` on the
 * buy's record, never shown as such), so a history entry exists exactly when its revision does.
 */

/** The most entries a buy keeps: include_history asks for at most 1000. */
const MAX_ENTRIES = 1000;
/** Who changes a buy through comply_test_controller: the seller's side, as the actor names it. */
export const CONTROLLER_ACTOR = 'comply_test_controller';

/** One history entry: revision, timestamp, actor and action; a summary and package when known. */
export interface HistoryEntry {
  revision: number;
  timestamp: string;
  actor: string;
  action: string;
  summary?: string;
  package_id?: string;
}

/** Appends `entry` to the buy `body` about to be written (the oldest dropped past MAX_ENTRIES). */
export function appendHistory(body: JsonObject, entry: HistoryEntry): void {
  const kept = Array.isArray(body.kit_history) ? body.kit_history.filter(isJsonObject) : [];
  const clean: JsonObject = Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== undefined));
  if (typeof clean.summary === 'string') clean.summary = clean.summary.slice(0, 500);
  body.kit_history = [...kept, clean].slice(-MAX_ENTRIES);
}

/** `include_history` of a get_media_buys request: 0 (none) to 1000; INVALID_REQUEST otherwise. */
export function readIncludeHistory(value: unknown): number {
  if (value === undefined) return 0;
  if (!Number.isSafeInteger(value) || (value as number) < 0 || (value as number) > MAX_ENTRIES) {
    throw new AdcpToolError('INVALID_REQUEST', `include_history must be an integer from 0 to ${MAX_ENTRIES}.`, {
      field: 'include_history',
      recovery: 'correctable',
    });
  }
  return value as number;
}

/** The last `n` entries of a stored buy, most recent first. */
export function historyOf(body: JsonObject, n: number): JsonObject[] {
  const kept = Array.isArray(body.kit_history) ? body.kit_history.filter(isJsonObject) : [];
  return kept.slice(-n).reverse();
}

/** The history action of a status the controller forced (`from` -> `to`). */
export function statusAction(from: string, to: string): string {
  if (to === 'active') return from === 'paused' ? 'resumed' : 'activated';
  if (['paused', 'canceled', 'rejected', 'completed'].includes(to)) return to;
  return 'status_changed';
}

/**
 * The entry of one update_media_buy: its action (the standard names, most telling first: a status
 * change, then packages added, a single package paused, resumed or canceled, budgets, dates, other
 * package changes) and a summary of every change, from the buy before and after.
 */
export function updateEntry(
  before: JsonObject,
  after: JsonObject,
  base: { revision: number; timestamp: string; actor: string },
): HistoryEntry {
  const changes: { action: string; text: string; package_id?: string }[] = [];
  const from = String(before.status);
  const to = String(after.status);
  if (to === 'canceled' && from !== 'canceled') changes.push({ action: 'canceled', text: 'Canceled' });
  else if (to === 'paused' && from !== 'paused') changes.push({ action: 'paused', text: 'Paused' });
  else if (from === 'paused' && to !== 'paused') changes.push({ action: 'resumed', text: 'Resumed' });
  const old = new Map(jsonObjects(before.packages).map((p) => [String(p.package_id), p]));
  const added = jsonObjects(after.packages).filter((p) => !old.has(String(p.package_id)));
  if (added.length > 0) {
    changes.push({
      action: 'updated_packages',
      text: `Added ${added.map((p) => String(p.package_id)).join(', ')}`,
    });
  }
  for (const p of jsonObjects(after.packages)) {
    const id = String(p.package_id);
    const was = old.get(id);
    if (was === undefined) continue;
    if (p.canceled === true && was.canceled !== true)
      changes.push({ action: 'package_canceled', text: `Canceled ${id}`, package_id: id });
    else if (p.paused === true && was.paused !== true)
      changes.push({ action: 'package_paused', text: `Paused ${id}`, package_id: id });
    else if (p.paused !== true && was.paused === true)
      changes.push({ action: 'package_resumed', text: `Resumed ${id}`, package_id: id });
    if (p.budget !== was.budget) {
      changes.push({
        action: 'updated_budget',
        text: `Budget of ${id} from ${String(was.budget)} to ${String(p.budget)} ${String(after.currency)}`,
        package_id: id,
      });
    }
    for (const field of ['bid_price', 'targeting_overlay', 'creative_assignments'] as const) {
      if (JSON.stringify(p[field]) !== JSON.stringify(was[field])) {
        changes.push({ action: 'updated_packages', text: `${field} of ${id} changed`, package_id: id });
      }
    }
  }
  for (const field of ['start_time', 'end_time'] as const) {
    if (before[field] !== after[field]) {
      changes.push({
        action: 'updated_dates',
        text: `${field} from ${String(before[field])} to ${String(after[field])}`,
      });
    }
  }
  const order = [
    'canceled',
    'paused',
    'resumed',
    'package_canceled',
    'package_paused',
    'package_resumed',
    'updated_packages',
    'updated_budget',
    'updated_dates',
  ];
  const main = [...changes].sort((a, b) => order.indexOf(a.action) - order.indexOf(b.action))[0];
  const packages = new Set(changes.map((c) => c.package_id));
  return {
    ...base,
    action: main?.action ?? 'updated',
    summary: changes.length === 0 ? 'No change' : changes.map((c) => c.text).join('; '),
    // The package, when every change was to one package.
    ...(packages.size === 1 && main?.package_id !== undefined ? { package_id: main.package_id } : {}),
  };
}
