import type { JsonObject } from '../core/types.js';
import { isJsonObject, jsonObjects } from '../core/json-object.js';
import { AdcpToolError } from '../server/tools/tool-error.js';

/**
 * The kit's delivery reporting (get_media_buy_delivery, get_media_buys snapshots) over what the
 * test controller simulated: per buy, the cumulative totals and the counts of each UTC day
 * (`kit_days`), from which a date range, a package's daily breakdown and per-window slices are
 * cut (decision 0318).
 */

/** Counts simulate_delivery adds up (core/delivery-metrics.json); the days keep these and `spend`. */
export const DELIVERY_COUNTS = [
  'impressions',
  'clicks',
  'conversions',
  'views',
  'completed_views',
  'leads',
  'plays',
] as const;

/** Granularities the kit's daily records can slice a period into. */
const KIT_GRANULARITIES = new Set(['daily', 'monthly']);
/** The most windows one buy's answer carries. */
const MAX_WINDOWS = 1000;
const DAY_MS = 86_400_000;

export const money = (n: number) => Math.round(n * 100) / 100;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const dayMs = (date: string) => Date.parse(`${date}T00:00:00.000Z`);
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Whether `value` is a real calendar date written YYYY-MM-DD. */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string' || !DATE.test(value)) return false;
  const ms = dayMs(value);
  return Number.isFinite(ms) && dayOf(ms) === value;
}

/**
 * A buy's delivery totals from a delivery record (core/delivery-metrics.json): the counts and
 * objects as given, and the rates they imply (CPM, CTR, cost per click and per completed view,
 * completion rate) when their denominator is not zero. The kit's own keys (`kit_*`) stay out.
 */
export function deliveryTotals(simulated: JsonObject): JsonObject {
  const metrics = Object.fromEntries(
    Object.entries(simulated).filter(([k]) => !k.startsWith('kit_') && k !== 'reported_spend'),
  );
  const reported = simulated.reported_spend;
  const spend = money(isJsonObject(reported) ? Number(reported.amount) : 0);
  const totals: JsonObject = { impressions: 0, clicks: 0, ...metrics, spend };
  const count = (name: string) => (typeof totals[name] === 'number' ? totals[name] : 0);
  const rate = (name: string, value: number, over: number) => {
    if (over > 0) totals[name] = Math.round((value / over) * 10_000) / 10_000;
  };
  rate('cpm', spend * 1000, count('impressions'));
  rate('ctr', count('clicks'), count('impressions'));
  rate('cost_per_click', spend, count('clicks'));
  rate('cost_per_completed_view', spend, count('completed_views'));
  rate('completion_rate', count('completed_views'), count('views'));
  return totals;
}

/** The delivery record after one simulated batch: its counts and spend added to the batch's day. */
export function addDay(days: unknown, date: string, batch: JsonObject): JsonObject {
  const all: JsonObject = isJsonObject(days) ? { ...days } : {};
  const day: JsonObject = isJsonObject(all[date]) ? { ...all[date] } : {};
  for (const metric of DELIVERY_COUNTS) {
    if (typeof batch[metric] === 'number') day[metric] = Number(day[metric] ?? 0) + batch[metric];
  }
  const spend = isJsonObject(batch.reported_spend) ? Number(batch.reported_spend.amount) : 0;
  day.spend = money(Number(day.spend ?? 0) + spend);
  all[date] = day;
  return all;
}

/** What a get_media_buy_delivery request asks of the period and its breakdowns. */
export interface DeliveryQuery {
  /** YYYY-MM-DD, inclusive. */
  startDate?: string;
  /** YYYY-MM-DD, exclusive (comply-test-controller.md, simulate_delivery: `[start_date, end_date)`). */
  endDate?: string;
  dailyByPackage: boolean;
  granularity?: string;
  windows: boolean;
}

const invalid = (message: string, field: string) =>
  new AdcpToolError('INVALID_REQUEST', message, { field, recovery: 'correctable' });

/** Reads and checks the request's period and breakdown fields (get-media-buy-delivery-request.json). */
export function readDeliveryQuery(args: JsonObject): DeliveryQuery {
  const query: DeliveryQuery = {
    dailyByPackage: args.include_package_daily_breakdown === true,
    windows: args.include_window_breakdown === true,
  };
  for (const [field, key] of [
    ['start_date', 'startDate'],
    ['end_date', 'endDate'],
  ] as const) {
    const value = args[field];
    if (value === undefined) continue;
    if (!isCalendarDate(value)) throw invalid(`${field} must be a calendar date, YYYY-MM-DD.`, field);
    query[key] = value;
  }
  if (query.startDate !== undefined && query.endDate !== undefined && query.endDate <= query.startDate) {
    throw new AdcpToolError(
      'VALIDATION_ERROR',
      'end_date must be after start_date: the period is [start_date, end_date), end_date excluded; for one day, end_date is the next day.',
      { field: 'end_date', recovery: 'correctable' },
    );
  }
  const granularity = args.time_granularity;
  if (granularity !== undefined) {
    if (typeof granularity !== 'string' || !['hourly', 'daily', 'monthly'].includes(granularity)) {
      throw invalid('time_granularity must be hourly, daily or monthly.', 'time_granularity');
    }
    query.granularity = granularity;
  }
  return query;
}

/**
 * Refuses what the buys' products do not support (reporting-capabilities.json): a date range on a
 * `lifetime_only` product (UNSUPPORTED_FEATURE), a `time_granularity` outside a product's
 * `windowed_pull_granularities` or finer than the kit's daily records (UNSUPPORTED_GRANULARITY).
 */
export function checkCapabilities(query: DeliveryQuery, capabilities: JsonObject[]): void {
  if (query.startDate !== undefined || query.endDate !== undefined) {
    if (capabilities.some((c) => c.date_range_support === 'lifetime_only')) {
      throw new AdcpToolError(
        'UNSUPPORTED_FEATURE',
        'A product of these media buys reports lifetime totals only (date_range_support: lifetime_only); omit start_date and end_date.',
        { field: query.startDate !== undefined ? 'start_date' : 'end_date', recovery: 'correctable' },
      );
    }
  }
  const granularity = query.granularity;
  if (granularity === undefined) return;
  const declared = capabilities.every(
    (c) => Array.isArray(c.windowed_pull_granularities) && c.windowed_pull_granularities.includes(granularity),
  );
  if (!declared || !KIT_GRANULARITIES.has(granularity)) {
    throw new AdcpToolError(
      'UNSUPPORTED_GRANULARITY',
      `These media buys cannot be pulled at ${granularity} granularity: ${
        declared
          ? 'this seller keeps delivery by day'
          : "it is not among every product's reporting_capabilities.windowed_pull_granularities"
      }.`,
      { field: 'time_granularity', recovery: 'correctable' },
    );
  }
}

/** The answer's `reporting_period` (UTC): the dates asked, else the buys' lifetime up to now. */
export function reportingPeriod(query: DeliveryQuery, buys: JsonObject[], now: number): { start: number; end: number } {
  const starts = buys.map((b) => Date.parse(String(b.created_at))).filter(Number.isFinite);
  const end =
    query.endDate !== undefined ? dayMs(query.endDate) : Math.max(now, dayMs(query.startDate ?? '1970-01-01'));
  const start = query.startDate !== undefined ? dayMs(query.startDate) : Math.min(end, now, ...starts);
  return { start, end };
}

/** A buy's delivery record's days within `[from, to)` (YYYY-MM-DD; undefined is open), by date. */
function daysIn(record: JsonObject, from: string | undefined, to: string | undefined): [string, JsonObject][] {
  const days = isJsonObject(record.kit_days) ? record.kit_days : {};
  return Object.entries(days)
    .filter((e): e is [string, JsonObject] => isJsonObject(e[1]))
    .filter(([date]) => (from === undefined || date >= from) && (to === undefined || date < to))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The summed counts and spend of some days, as a delivery record deliveryTotals reads. */
function summed(days: [string, JsonObject][]): JsonObject {
  const sum: JsonObject = {};
  let spend = 0;
  for (const [, day] of days) {
    for (const metric of DELIVERY_COUNTS) {
      if (typeof day[metric] === 'number') sum[metric] = Number(sum[metric] ?? 0) + day[metric];
    }
    spend += Number(day.spend ?? 0);
  }
  return { ...sum, reported_spend: { amount: money(spend) } };
}

/** A package's share of a buy's delivery: the kit records delivery per buy, split evenly. */
export function packageShare(buy: JsonObject): number {
  const packages = jsonObjects(buy.packages);
  return packages.length === 0 ? 0 : 1 / packages.length;
}

/** One package's part of some totals: its share of impressions (whole) and spend. */
export function shareOf(totals: JsonObject, share: number): { impressions: number; spend: number } {
  return {
    impressions: Math.floor(Number(totals.impressions ?? 0) * share),
    spend: money(Number(totals.spend) * share),
  };
}

/** Windows of `granularity` partitioning `[start, end)` (UTC days or months), at most MAX_WINDOWS. */
function windowsOf(start: number, end: number, granularity: string): [number, number][] {
  const out: [number, number][] = [];
  let from = start;
  while (from < end) {
    const d = new Date(from);
    const next =
      granularity === 'monthly'
        ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
        : Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) + DAY_MS;
    out.push([from, Math.min(next, end)]);
    from = Math.min(next, end);
    if (out.length > MAX_WINDOWS) {
      throw invalid(
        `At most ${MAX_WINDOWS} windows per media buy; narrow start_date and end_date.`,
        'time_granularity',
      );
    }
  }
  return out;
}

/**
 * One `media_buy_deliveries[]` entry: lifetime totals (every simulated count, viewability and
 * reach included) when no date is asked, else the counts and spend of the days in the period;
 * `by_package` the packages' even shares, with their days when `include_package_daily_breakdown`;
 * `windows` when `time_granularity` and `include_window_breakdown` ask for them.
 */
export function buyDelivery(
  buy: JsonObject,
  record: JsonObject,
  query: DeliveryQuery,
  period: { start: number; end: number },
): JsonObject {
  const dated = query.startDate !== undefined || query.endDate !== undefined;
  const days = daysIn(record, query.startDate, query.endDate);
  const totals = deliveryTotals(dated ? summed(days) : record);
  const share = packageShare(buy);
  const currency = typeof buy.currency === 'string' ? buy.currency : 'USD';
  const packages = jsonObjects(buy.packages);
  const entry: JsonObject = {
    media_buy_id: String(buy.media_buy_id),
    status: String(buy.status),
    totals,
    by_package: packages.map((p) => ({
      package_id: String(p.package_id),
      ...shareOf(totals, share),
      pricing_model: 'cpm',
      rate: typeof p.bid_price === 'number' ? p.bid_price : 0,
      currency,
      ...(query.dailyByPackage
        ? {
            daily_breakdown: days.map(([date, day]) => ({
              date,
              ...shareOf(deliveryTotals(summed([[date, day]])), share),
            })),
          }
        : {}),
    })),
  };
  if (query.granularity !== undefined && query.windows) {
    // Whole UTC days: the period's first day to the end of its last.
    const first = dayMs(dayOf(period.start));
    const last = period.end === dayMs(dayOf(period.end)) ? period.end : dayMs(dayOf(period.end)) + DAY_MS;
    entry.windows = windowsOf(first, last, query.granularity).map(([from, to]) => {
      const slice = deliveryTotals(summed(daysIn(record, dayOf(from), dayOf(to))));
      return {
        window_start: new Date(from).toISOString(),
        window_end: new Date(to).toISOString(),
        totals: slice,
        by_package: packages.map((p) => ({ package_id: String(p.package_id), ...shareOf(slice, share) })),
      };
    });
  }
  return entry;
}

/**
 * A package's `snapshot` (get-media-buys-response.json) from the buy's delivery record: its share
 * of the lifetime impressions, spend and clicks, as of now; the records are the kit's source of
 * truth, so the data is never stale (`staleness_seconds: 0`).
 */
export function snapshotOf(buy: JsonObject, record: JsonObject, asOf: string): JsonObject {
  const totals = deliveryTotals(record);
  const share = packageShare(buy);
  return {
    as_of: asOf,
    staleness_seconds: 0,
    ...shareOf(totals, share),
    clicks: Math.floor(Number(totals.clicks ?? 0) * share),
  };
}
