import type { JsonObject } from '../core/types.js';
import { jsonObjects } from '../core/json-object.js';
import { adcpError } from '../server/tools/adcp-error.js';
import type { AdcpToolDefinition } from '../server/types.js';
import type { KitRecord, KitRecords } from './records.js';
import { accountRecords, accountsHolding } from './account-records.js';

/**
 * Conversion tracking (sync-event-sources-request.json, log-event-request.json): the buyer's
 * event sources, owned by the request's account and keyed there by `event_source_id` (decision
 * 0321); events de-duplicated by `event_id` across every source of that account (the same
 * conversion seen by a pixel and by a server counts once); and the rule that an optimization
 * goal may only name a source registered on the buy's account (INVALID_REQUEST at its path).
 */

const MAX_SOURCES = 100;
const invalid = (message: string, field: string) => adcpError('INVALID_REQUEST', { message, field });

interface ConversionDeps {
  records: KitRecords;
  now: () => number;
  /** Resolves the request's account (ACCOUNT_NOT_FOUND for an unknown id); the kit's own rule. */
  resolveAccount: (principal: string, ref: unknown, buying: boolean) => Promise<string>;
}

const live = (record: KitRecord | undefined): record is KitRecord =>
  record !== undefined && record.body.deleted !== true;

/**
 * Each package's event-kind optimization goals name registered event sources: a phantom source
 * is INVALID_REQUEST at `packages[i].optimization_goals[j].event_sources[k].event_source_id`
 * (performance_buy_flow, rejection_unbound_event_source).
 */
export async function checkGoalSources(
  records: KitRecords,
  principal: string,
  accountId: string,
  packages: JsonObject[],
  field = 'packages',
): Promise<void> {
  const sources = accountRecords(records, principal, 'event_source', accountId);
  for (const [i, pkg] of packages.entries()) {
    for (const [j, goal] of jsonObjects(pkg.optimization_goals).entries()) {
      for (const [k, ref] of jsonObjects(goal.event_sources).entries()) {
        const id = ref.event_source_id;
        if (typeof id !== 'string' || !live(await sources.get(id))) {
          throw invalid(
            'The optimization goal names an event source that is not registered (sync_event_sources).',
            `${field}[${i}].optimization_goals[${j}].event_sources[${k}].event_source_id`,
          );
        }
      }
    }
  }
}

export function conversionTools(deps: ConversionDeps): AdcpToolDefinition[] {
  const { records, now, resolveAccount } = deps;
  /**
   * The account of the source a log_event names (decision 0321): the request's `account` when it
   * sends one (the storyboards do; the schema allows it), else the one account holding that
   * `event_source_id` (log-event-request.json names no account); an id on several accounts is
   * ACCOUNT_AMBIGUOUS, an unknown one REFERENCE_NOT_FOUND.
   */
  const sourceAccount = async (principal: string, ref: unknown, sourceId: string): Promise<string> => {
    const notFound = () =>
      adcpError('REFERENCE_NOT_FOUND', { message: 'No such event source.', field: 'event_source_id' });
    if (ref !== undefined) {
      const accountId = await resolveAccount(principal, ref, false);
      if (!live(await accountRecords(records, principal, 'event_source', accountId).get(sourceId))) throw notFound();
      return accountId;
    }
    const holders = await accountsHolding(records, principal, 'event_source', sourceId, live);
    if (holders.length === 0) throw notFound();
    if (holders.length > 1) {
      throw adcpError('ACCOUNT_AMBIGUOUS', {
        message: `The event source ${sourceId.slice(0, 256)} is registered on ${holders.length} accounts; send account to name one.`,
        field: 'event_source_id',
      });
    }
    return holders[0] as string;
  };
  return [
    {
      name: 'sync_event_sources',
      description:
        'Register or update conversion event sources (pixel, app SDK, server); delete_missing removes the rest.',
      handler: async (args, ctx) => {
        const accountId = await resolveAccount(ctx.principal, args.account, false);
        const registered = accountRecords(records, ctx.principal, 'event_source', accountId);
        // Without event_sources the call is discovery-only (sync-event-sources-request.json).
        if (args.event_sources === undefined) {
          return {
            event_sources: (await registered.list()).filter(live).map((r) => ({ ...r.body, action: 'unchanged' })),
          };
        }
        const sources = jsonObjects(args.event_sources);
        if (sources.length > MAX_SOURCES)
          throw invalid(`At most ${MAX_SOURCES} event sources per call.`, 'event_sources');
        const results: JsonObject[] = [];
        const named = new Set<string>();
        for (const [i, source] of sources.entries()) {
          const id = source.event_source_id;
          if (typeof id !== 'string' || id === '' || id.length > 256) {
            throw invalid(
              'event_source_id is required (at most 256 characters).',
              `event_sources[${i}].event_source_id`,
            );
          }
          if (named.has(id))
            throw invalid(`event_source_id ${id} is listed twice.`, `event_sources[${i}].event_source_id`);
          named.add(id);
          const existing = await registered.get(id);
          const body: JsonObject = {
            event_source_id: id,
            ...(typeof source.name === 'string' ? { name: source.name.slice(0, 256) } : {}),
            ...(Array.isArray(source.event_types) ? { event_types: source.event_types } : {}),
            ...(typeof source.action_source === 'string' ? { action_source: source.action_source } : {}),
            ...(Array.isArray(source.allowed_domains) ? { allowed_domains: source.allowed_domains } : {}),
            managed_by: 'buyer',
            setup: {
              snippet_type: 'server_only',
              snippet: `POST log_event with event_source_id "${id}"`,
              instructions: 'Send conversions with log_event; events are de-duplicated by event_id.',
            },
          };
          const live = existing !== undefined && existing.body.deleted !== true;
          const unchanged = live && JSON.stringify(existing.body) === JSON.stringify(body);
          if (!unchanged && !(await registered.put(id, body, existing?.version ?? 0))) {
            throw adcpError('CONFLICT', { message: `The event source ${id} changed meanwhile; sync again.` });
          }
          results.push({ ...body, action: unchanged ? 'unchanged' : live ? 'updated' : 'created' });
        }
        if (args.delete_missing === true) {
          for (const other of await registered.list()) {
            if (named.has(other.id) || other.body.deleted === true) continue;
            await registered.put(other.id, { ...other.body, deleted: true }, other.version);
            results.push({ event_source_id: other.id, action: 'deleted' });
          }
        }
        return { event_sources: results };
      },
    },
    {
      name: 'log_event',
      description: 'Record conversion events from a registered event source, de-duplicated by event_id.',
      handler: async (args, ctx) => {
        const sourceId = String(args.event_source_id);
        const accountId = await sourceAccount(ctx.principal, args.account, sourceId);
        const logged = accountRecords(records, ctx.principal, 'event', accountId);
        const events = jsonObjects(args.events);
        if (events.length === 0 || events.length > 10_000)
          throw invalid('events must hold 1 to 10000 events.', 'events');
        const test = typeof args.test_event_code === 'string';
        let processed = 0;
        const failures: JsonObject[] = [];
        for (const event of events) {
          const id = event.event_id;
          if (typeof id !== 'string' || id === '' || id.length > 256) {
            failures.push({
              event_id: typeof id === 'string' ? id : '',
              code: 'INVALID_REQUEST',
              message: 'event_id is required.',
            });
            continue;
          }
          // Test events are checked, never recorded (log-event-request.json test_event_code).
          if (test) continue;
          // One record per event_id, whichever source saw it first: a second sighting is a duplicate.
          const stored = await logged.put(
            id,
            {
              event_source_id: sourceId,
              event_type: event.event_type ?? null,
              received_at: new Date(now()).toISOString(),
            },
            0,
          );
          if (stored) processed += 1;
        }
        const duplicates = test ? 0 : events.length - failures.length - processed;
        const warnings = [
          ...(test ? ['test_event_code: the events were validated, not recorded.'] : []),
          ...(duplicates > 0 ? [`${duplicates} event(s) repeat an event_id already received; counted once.`] : []),
        ];
        return {
          events_received: events.length,
          events_processed: test ? events.length - failures.length : processed,
          ...(failures.length > 0 ? { partial_failures: failures } : {}),
          ...(warnings.length > 0 ? { warnings } : {}),
        };
      },
    },
  ];
}
