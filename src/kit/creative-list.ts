import type { JsonObject } from '../core/types.js';
import { isJsonObject, jsonObjects } from '../core/json-object.js';
import { adcpError } from '../server/tools/adcp-error.js';
import { pageOf, readPageQuery, sortByKey, sortKey } from '../server/tools/paginate.js';
import { AdcpToolError } from '../server/tools/tool-error.js';
import type { KitRecord } from './records.js';

/**
 * `list_creatives` over the kit's library (3.1 list-creatives-request.json): every filter of
 * core/creative-filters.json the kit's records can answer, the sort (enums/creative-sort-field.json,
 * default `created_date` `desc`, ties by `creative_id` in the same direction), keyset pages under
 * any sort, and `query_summary` naming what was applied. A filter the kit cannot answer is
 * UNSUPPORTED_FEATURE naming it, never ignored (decision 0253).
 */

/** The sort fields of enums/creative-sort-field.json. */
const SORT_FIELDS = ['created_date', 'updated_date', 'name', 'status', 'assignment_count'] as const;
type SortField = (typeof SORT_FIELDS)[number];

/** Filters the kit cannot answer from what it stores, and why (decision 0253). */
const UNANSWERABLE: Record<string, string> = {
  has_served:
    'This seller keeps delivery per media buy, not per creative, so it cannot tell which creatives have served.',
};

/** Buys whose assignments are released: canceling or rejecting a buy releases them (creative_fate_after_cancellation). */
const RELEASED = new Set(['canceled', 'rejected']);

export interface Assignments {
  count: number;
  packages: Set<string>;
  buys: Set<string>;
}

const invalid = (message: string, field: string) =>
  new AdcpToolError('INVALID_REQUEST', message, { field, recovery: 'correctable' });

function strings(value: unknown, field: string): Set<string> | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string')) {
    throw invalid(`${field} must be a non-empty list of strings.`, field);
  }
  return new Set(value);
}

function flag(value: unknown, field: string): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  throw invalid(`${field} must be true or false.`, field);
}

function instant(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw invalid(`${field} must be an ISO 8601 date-time.`, field);
  return ms;
}

/** A format id's identity: its agent (without a trailing slash), its id and the parameters it names. */
function formatMatches(wanted: JsonObject, format: unknown): boolean {
  if (!isJsonObject(format)) return false;
  const agent = (f: JsonObject) => (typeof f.agent_url === 'string' ? f.agent_url.replace(/\/+$/, '') : '');
  if (agent(wanted) !== agent(format) || wanted.id !== format.id) return false;
  // A parameterized filter (width and height, duration) matches only that variant.
  return ['width', 'height', 'duration_ms'].every((p) => wanted[p] === undefined || wanted[p] === format[p]);
}

/** Each creative's live assignments, from the packages of the caller's buys (canceled packages and released buys left out). */
export function assignmentsOf(buys: KitRecord[]): Map<string, Assignments> {
  const byCreative = new Map<string, Assignments>();
  for (const buy of buys) {
    if (RELEASED.has(String(buy.body.status))) continue;
    for (const pkg of jsonObjects(buy.body.packages)) {
      if (pkg.canceled === true) continue;
      for (const assignment of jsonObjects(pkg.creative_assignments)) {
        if (typeof assignment.creative_id !== 'string') continue;
        const entry = byCreative.get(assignment.creative_id) ?? { count: 0, packages: new Set(), buys: new Set() };
        entry.count += 1;
        entry.packages.add(String(pkg.package_id));
        entry.buys.add(buy.id);
        byCreative.set(assignment.creative_id, entry);
      }
    }
  }
  return byCreative;
}

const NONE: Assignments = { count: 0, packages: new Set(), buys: new Set() };

/** The `fields` values of list-creatives-request.json. */
const FIELDS = [
  'creative_id',
  'name',
  'format_id',
  'status',
  'created_date',
  'updated_date',
  'tags',
  'assignments',
  'snapshot',
  'items',
  'variables',
  'concept',
  'pricing_options',
] as const;
/** What every listed creative keeps whatever `fields` says: the response's required fields and its format reference. */
const ALWAYS = ['creative_id', 'name', 'status', 'created_date', 'updated_date', 'format_id', 'format_kind'];
/** The answer's keys a `fields` value shows, where they differ from its name. */
const KEYS_OF: Record<string, string[]> = {
  concept: ['concept_id', 'concept_name'],
  snapshot: ['snapshot', 'snapshot_unavailable_reason'],
};

/** The keys `fields` lets through, undefined for every key (decision 0312). */
function readFields(value: unknown): Set<string> | undefined {
  if (value === undefined) return undefined;
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((f) => typeof f === 'string' && (FIELDS as readonly string[]).includes(f))
  ) {
    throw invalid(`fields must be a non-empty list of ${FIELDS.join(', ')}.`, 'fields');
  }
  return new Set([...ALWAYS, ...(value as string[]).flatMap((f) => KEYS_OF[f] ?? [f])]);
}

function readSort(value: unknown): { field: SortField; direction: 'asc' | 'desc' } {
  if (value === undefined) return { field: 'created_date', direction: 'desc' };
  if (!isJsonObject(value)) throw invalid('sort must be an object.', 'sort');
  const field = value.field ?? 'created_date';
  if (!SORT_FIELDS.includes(field as SortField)) {
    throw invalid(`sort.field must be one of ${SORT_FIELDS.join(', ')}.`, 'sort.field');
  }
  const direction = value.direction ?? 'desc';
  if (direction !== 'asc' && direction !== 'desc')
    throw invalid('sort.direction must be asc or desc.', 'sort.direction');
  return { field: field as SortField, direction };
}

export interface CreativeListInput {
  args: JsonObject;
  /** The caller's creatives and media buys (the buys give the assignments). */
  creatives: KitRecord[];
  buys: KitRecord[];
  /** The account id an account reference names (`account_id`, else its natural key). */
  accountOf: (ref: JsonObject) => string;
  /** A stored body as the buyer sees it (the kit's own fields removed). */
  show: (body: JsonObject) => JsonObject;
}

/** The `list_creatives` answer (3.1 list-creatives-response.json) for one request. */
export function listCreatives({ args, creatives, buys, accountOf, show }: CreativeListInput): JsonObject {
  const filters = args.filters === undefined ? {} : args.filters;
  if (!isJsonObject(filters)) throw invalid('filters must be an object.', 'filters');
  const applied: string[] = [];
  const tests: ((c: KitRecord, a: Assignments) => boolean)[] = [];
  const test = (name: string, keep: (c: KitRecord, a: Assignments) => boolean) => {
    applied.push(name);
    tests.push(keep);
  };
  const assignments = assignmentsOf(buys);
  const tagsOf = (c: KitRecord) => (Array.isArray(c.body.tags) ? c.body.tags : []);

  for (const [name, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    const field = `filters.${name}`;
    switch (name) {
      case 'creative_ids': {
        const ids = strings(value, field) as Set<string>;
        if (ids.size > 100) throw invalid(`${field} names at most 100 creatives.`, field);
        test(name, (c) => ids.has(c.id));
        break;
      }
      case 'statuses': {
        const statuses = strings(value, field) as Set<string>;
        test(name, (c) => statuses.has(String(c.body.status)));
        break;
      }
      case 'tags': {
        const tags = strings(value, field) as Set<string>;
        test(name, (c) => [...tags].every((t) => tagsOf(c).includes(t)));
        break;
      }
      case 'tags_any': {
        const tags = strings(value, field) as Set<string>;
        test(name, (c) => tagsOf(c).some((t) => typeof t === 'string' && tags.has(t)));
        break;
      }
      case 'concept_ids': {
        const concepts = strings(value, field) as Set<string>;
        // 3.1 creatives carry no concept on sync: none belongs to one unless its body says so.
        test(name, (c) => typeof c.body.concept_id === 'string' && concepts.has(c.body.concept_id));
        break;
      }
      case 'name_contains': {
        if (typeof value !== 'string') throw invalid(`${field} must be a string.`, field);
        const part = value.toLowerCase();
        test(name, (c) => String(c.body.name).toLowerCase().includes(part));
        break;
      }
      case 'created_after':
      case 'created_before':
      case 'updated_after':
      case 'updated_before': {
        const bound = instant(value, field) as number;
        const stamp = name.startsWith('created') ? 'created_date' : 'updated_date';
        const after = name.endsWith('_after');
        test(name, (c) => {
          const at = Date.parse(String(c.body[stamp]));
          return after ? at > bound : at < bound;
        });
        break;
      }
      case 'format_ids': {
        const formats = jsonObjects(value);
        if (!Array.isArray(value) || formats.length === 0 || formats.length !== value.length) {
          throw invalid(`${field} must be a non-empty list of format ids.`, field);
        }
        test(name, (c) => formats.some((f) => formatMatches(f, c.body.format_id)));
        break;
      }
      case 'accounts': {
        const refs = jsonObjects(value);
        if (!Array.isArray(value) || refs.length === 0 || refs.length !== value.length) {
          throw invalid(`${field} must be a non-empty list of account references.`, field);
        }
        const ids = new Set(refs.map(accountOf));
        test(name, (c) => typeof c.body.kit_account_id === 'string' && ids.has(c.body.kit_account_id));
        break;
      }
      case 'media_buy_ids': {
        const ids = strings(value, field) as Set<string>;
        test(name, (_c, a) => [...a.buys].some((b) => ids.has(b)));
        break;
      }
      case 'assigned_to_packages': {
        const ids = strings(value, field) as Set<string>;
        test(name, (_c, a) => [...a.packages].some((p) => ids.has(p)));
        break;
      }
      case 'unassigned': {
        const wanted = flag(value, field) as boolean;
        test(name, (_c, a) => (a.count === 0) === wanted);
        break;
      }
      case 'has_variables': {
        const wanted = flag(value, field) as boolean;
        // Synced 3.1 creatives declare no DCO variables: a creative has them only if its body lists some.
        test(name, (c) => (Array.isArray(c.body.variables) && c.body.variables.length > 0) === wanted);
        break;
      }
      case 'ext':
        // Vendor filters: the kit defines none, so an empty ext asks for nothing.
        if (isJsonObject(value) && Object.keys(value).length === 0) break;
        throw adcpError('UNSUPPORTED_FEATURE', { message: 'This seller defines no extension filters.', field });
      default:
        throw adcpError('UNSUPPORTED_FEATURE', {
          message: UNANSWERABLE[name] ?? 'This seller does not support that creative filter.',
          field,
        });
    }
  }
  // creative-filters.json: archived creatives are listed only when a status filter asks for them.
  if (filters.statuses === undefined) tests.push((c) => c.body.status !== 'archived');

  const sort = readSort(args.sort);
  const valueOf = (c: KitRecord): string => {
    switch (sort.field) {
      case 'assignment_count':
        return String((assignments.get(c.id) ?? NONE).count).padStart(10, '0');
      case 'name':
        return String(c.body.name).toLowerCase();
      case 'created_date':
      case 'updated_date':
      case 'status': {
        const value = c.body[sort.field];
        return typeof value === 'string' ? value : '';
      }
    }
  };
  const keyOf = (c: KitRecord) => sortKey(valueOf(c), c.id);
  const matching = sortByKey(
    creatives.filter((c) => tests.every((keep) => keep(c, assignments.get(c.id) ?? NONE))),
    keyOf,
    sort.direction,
  );
  const page = pageOf(matching, keyOf, readPageQuery(args), sort.direction);
  const fields = readFields(args.fields);
  const withAssignments = flag(args.include_assignments, 'include_assignments') !== false;
  const withSnapshot = flag(args.include_snapshot, 'include_snapshot') === true;
  const withVariables = flag(args.include_variables, 'include_variables') === true;
  const project = (creative: JsonObject): JsonObject =>
    fields === undefined ? creative : Object.fromEntries(Object.entries(creative).filter(([k]) => fields.has(k)));
  return {
    query_summary: {
      total_matching: matching.length,
      returned: page.items.length,
      ...(applied.length === 0 ? {} : { filters_applied: applied }),
      sort_applied: sort,
    },
    pagination: page.pagination,
    creatives: page.items.map((c) => {
      const { variables, ...shown } = show(c.body);
      return project({
        ...shown,
        ...(withAssignments ? { assignments: { assignment_count: (assignments.get(c.id) ?? NONE).count } } : {}),
        // The kit keeps no per-creative delivery (include_snapshot).
        ...(withSnapshot ? { snapshot_unavailable_reason: 'SNAPSHOT_UNSUPPORTED' } : {}),
        // A synced 3.1 creative declares no DCO variables: an empty list, unless its record has some.
        ...(withVariables ? { variables: Array.isArray(variables) ? variables : [] } : {}),
      });
    }),
  };
}
