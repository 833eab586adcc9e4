import { createHash, randomUUID } from 'node:crypto';
import type { JsonObject } from '../core/types.js';
import { isJsonObject, jsonObjects } from '../core/json-object.js';
import { checkOutboundUrl, type OutboundReach } from '../core/outbound-url.js';
import type { BillingParty, Format, Product } from '../schemas/generated/adcp-3.1.js';
import { isAnonymousPrincipal } from '../server/auth/auth-options.js';
import { adcpError } from '../server/tools/adcp-error.js';
import { assertTransition } from '../server/tools/lifecycles.js';
import { pageOf, readPageQuery, sortByKey, sortKey } from '../server/tools/paginate.js';
import type { ControllerScenario } from '../server/tools/test-controller.js';
import { AdcpToolError } from '../server/tools/tool-error.js';
import type { AdcpToolDefinition, ToolContext } from '../server/types.js';
import { kitScenarios } from './controller.js';
import {
  availableActions,
  enforceActions,
  flatActions,
  requestedActions,
  resolveBuyActions,
  type BuyActions,
} from './actions.js';
import { audienceTools, checkAudiences } from './audiences.js';
import { catalogTools } from './catalogs.js';
import { checkGoalSources, conversionTools } from './conversions.js';
import { buildTools } from './builds.js';
import { listCreatives } from './creative-list.js';
import { syncCreatives } from './creative-sync.js';
import { previewTools } from './previews.js';
import { formatPasses } from './format-filters.js';
import { filterProduct, formatKey } from './product-filters.js';
import { proposalRules } from './proposals.js';
import { appendHistory, historyOf, readIncludeHistory, updateEntry } from './buy-history.js';
import {
  buyDelivery,
  checkCapabilities,
  deliveryTotals,
  money,
  readDeliveryQuery,
  snapshotOf,
  reportingPeriod,
} from './delivery.js';
import {
  checkFlight,
  defaultAcceptTerms,
  liveStatus,
  notCancellable,
  notUpdatable,
  packageIdOf,
  TERMINAL_STATUSES,
  timeOf,
  validActions,
} from './media-buy-rules.js';
import type { KitRecord, KitRecords } from './records.js';
import type { BuyDecision, MediaBuySeller, ProposedBuy } from './seller.js';

export interface MediaBuyKitOptions {
  /** Where accounts, media buys and creatives live (MemoryKitRecords, SqliteKitRecords, PgKitRecords). */
  records: KitRecords;
  seller: MediaBuySeller;
  /** Default Date.now. */
  now?: () => number;
}

/** What `createMediaBuyKit` gives a seller: the tools, the controller scenarios, the capabilities to merge. */
export interface MediaBuyKit {
  /** The media-buy, account and creative tools, for `createAdcpServer({ tools })`. */
  tools: AdcpToolDefinition[];
  /** `comply_test_controller` scenarios over the same state, for `createAdcpServer({ testController })`. */
  scenarios: Record<string, ControllerScenario>;
  /** What the kit can state of itself in `get_adcp_capabilities` (`capabilities` option). */
  capabilities: JsonObject;
}

const MAX_IDS = 100;
/**
 * The largest package budget: a trillion in the buy's currency, far past any real budget and exact
 * to the cent as a double; `1e308` is finite and would overflow totals (docs/decisions/0127).
 */
const MAX_BUDGET = 1e12;

const invalid = (message: string, field: string) =>
  new AdcpToolError('INVALID_REQUEST', message, { field, recovery: 'correctable' });

function idList(value: unknown, field: string): Set<string> | undefined {
  if (value === undefined) return undefined;
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length > MAX_IDS || !list.every((v) => typeof v === 'string')) {
    throw invalid(`${field} must be a list of at most ${MAX_IDS} ids.`, field);
  }
  return new Set(list);
}

const iso = (ms: number) => new Date(ms).toISOString();
/** A stored body as the buyer sees it: without the seed fixture, the request's context and the account id. */
const shown = (body: JsonObject): JsonObject => {
  const {
    fixture: _fixture,
    request_context: _context,
    kit_account_id: _account,
    kit_actions: _a,
    kit_assets: _assets,
    seeded_at: _seeded,
    kit_proofs: _proofs,
    kit_default_pricing: _default,
    kit_history: _history,
    ...rest
  } = body;
  return rest;
};

/**
 * A seeded product's page key: seeded products come first, the newest seed first (a storyboard
 * seeds the products its next get_products expects to see, and one sandbox seller serves every
 * storyboard of a grading run, so an earlier storyboard's fixtures must not come first: decision
 * 0239); `sortKey` makes the key sort as the list does, so cursors page it soundly.
 */
const seededKey = (record: KitRecord): string =>
  sortKey(`a${String(Number.MAX_SAFE_INTEGER - Number(record.body.seeded_at ?? 0)).padStart(16, '0')}`, record.id);
/** The seller's own products after the seeded ones, in the seller's order. */
const ownKey = (product: Product, index: number): string =>
  sortKey(`b${String(index).padStart(10, '0')}`, product.product_id);
/** The actions a buy keeps from its products (decision 0210), undefined for a buy without. */
const actionsOf = (body: JsonObject): BuyActions | undefined =>
  isJsonObject(body.kit_actions) ? (body.kit_actions as unknown as BuyActions) : undefined;
/** A buy's `valid_actions` and, when its products declared a surface, `available_actions`. */
const actionFields = (body: JsonObject): JsonObject => {
  const status = String(body.status);
  const actions = actionsOf(body);
  if (actions === undefined) return { valid_actions: validActions(status) };
  return {
    valid_actions: flatActions(actions, status),
    available_actions: availableActions(actions, status),
  };
};
/** The value when it is a string, else the fallback. */
const str = (value: unknown, fallback: string): string => (typeof value === 'string' ? value : fallback);
const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** The account a natural key (brand + operator, sandbox or not) names: one id per key, stable. */
export function accountIdOf(ref: JsonObject): string {
  const brand = isJsonObject(ref.brand) ? ref.brand : {};
  const parts = [brand.domain, brand.brand_id, ref.operator, ref.sandbox === true ? 'sandbox' : ''];
  return `acct_${hash(parts.map((p) => (typeof p === 'string' ? p : '')).join('\u0000'))}`;
}

/** The account a reference names: its `account_id` when it gives one, else its natural key's (`accountIdOf`). */
const accountOfRef = (ref: JsonObject): string =>
  typeof ref.account_id === 'string' ? ref.account_id : accountIdOf(ref);

/**
 * The media-buy kit: the tools every sales agent needs, built on the official 3.1 shapes and the
 * spec's state machines, over the seller's inventory and decisions (`MediaBuySeller`) and durable
 * records (`KitRecords`), scoped to the caller's principal.
 */
export function createMediaBuyKit(options: MediaBuyKitOptions): MediaBuyKit {
  const { records, seller } = options;
  const now = options.now ?? Date.now;
  const acceptTerms = (terms: JsonObject, product: Product): true | string =>
    seller.acceptTerms === undefined ? defaultAcceptTerms(terms, product) : seller.acceptTerms(terms, product);

  const proposals = proposalRules({ records, seller, now });
  const supportedBilling: BillingParty[] = [...(seller.supportedBilling ?? ['operator'])];

  /**
   * The billing gates of a provisioning entry (decision 0211): the capability
   * (BILLING_NOT_SUPPORTED, `scope: capability`), then the seller's per-agent gate
   * (BILLING_NOT_PERMITTED_FOR_AGENT, clamped details). A caller without an established identity
   * gets BILLING_NOT_SUPPORTED without `scope` from either (error-handling.md, uniform response).
   */
  const billingRefusal = async (billing: unknown, principal: string): Promise<JsonObject | undefined> => {
    if (billing === undefined) return undefined;
    const identified = !isAnonymousPrincipal(principal);
    const named = typeof billing === 'string' ? billing.slice(0, 40) : 'that value';
    const notSupported = {
      code: 'BILLING_NOT_SUPPORTED',
      // One message for both gates when the caller is not identified: the answer is no oracle.
      message: identified
        ? `Billing ${named} is not supported; choose one of ${supportedBilling.join(', ')}.`
        : 'The requested billing is not available to this caller; supported_billing lists what the seller supports.',
      field: 'billing',
      recovery: 'correctable',
      details: { ...(identified ? { scope: 'capability' } : {}), supported_billing: supportedBilling },
    };
    if (!supportedBilling.includes(billing as BillingParty)) return notSupported;
    const verdict = (await seller.permitsBilling?.(billing as BillingParty, { principal })) ?? true;
    if (verdict === true) return undefined;
    if (!identified) return notSupported;
    const suggested = verdict.suggested;
    return {
      code: 'BILLING_NOT_PERMITTED_FOR_AGENT',
      message: `This agent's relationship with the seller does not permit ${named} billing.`,
      field: 'billing',
      recovery: 'correctable',
      // error-details/billing-not-permitted-for-agent.json: these two and nothing else.
      details: {
        rejected_billing: billing as BillingParty,
        ...(suggested !== undefined && supportedBilling.includes(suggested) ? { suggested_billing: suggested } : {}),
      },
    };
  };

  /** Writes a record that was read at `record.version`; a lost race is CONFLICT (transient: read again). */
  const save = async (
    principal: string,
    kind: 'media_buy' | 'account' | 'creative',
    id: string,
    body: JsonObject,
    expected: number,
  ) => {
    if (!(await records.put(principal, kind, id, body, expected))) {
      throw adcpError('CONFLICT', { message: `The ${kind.replace('_', ' ')} ${id} changed meanwhile; read it again.` });
    }
  };

  /**
   * Every product the caller may buy, in listing order with the key its pages are cut on: those
   * seeded through the controller, then the seller's own.
   */
  const allProducts = async (
    principal: string,
    brief: string | undefined,
    filters: JsonObject,
  ): Promise<{ product: Product; key: string }[]> => {
    const own = await seller.products({ brief, filters, principal });
    const seeded = sortByKey(
      (await records.list(principal, 'product')).map((r) => ({
        product: shown(r.body) as unknown as Product,
        key: seededKey(r),
      })),
      (s) => s.key,
    );
    const ids = new Set(seeded.map((s) => s.product.product_id));
    const mine = own.filter((p) => !ids.has(p.product_id)).map((product, i) => ({ product, key: ownKey(product, i) }));
    return [...seeded, ...mine];
  };

  const findProduct = async (principal: string, id: unknown): Promise<Product | undefined> => {
    if (typeof id !== 'string') return undefined;
    const seeded = await records.get(principal, 'product', id);
    if (seeded !== undefined) return shown(seeded.body) as unknown as Product;
    return (await seller.products({ brief: undefined, filters: {}, principal })).find((p) => p.product_id === id);
  };

  /** Resolves the request's account reference to its id; refuses accounts that may not buy. */
  const resolveAccount = async (principal: string, ref: unknown, buying: boolean): Promise<string> => {
    if (!isJsonObject(ref)) return accountIdOf({});
    if (typeof ref.account_id === 'string') {
      const stored = await records.get(principal, 'account', ref.account_id);
      if (stored === undefined) {
        throw adcpError('ACCOUNT_NOT_FOUND', { message: `No account ${ref.account_id}.`, field: 'account.account_id' });
      }
      if (buying) checkAccountStatus(stored.body);
      return ref.account_id;
    }
    const id = accountIdOf(ref);
    const stored = await records.get(principal, 'account', id);
    if (buying && stored !== undefined) checkAccountStatus(stored.body);
    return id;
  };

  const checkAccountStatus = (account: JsonObject): void => {
    const status = String(account.status);
    if (status === 'suspended') throw adcpError('ACCOUNT_SUSPENDED', { field: 'account' });
    if (status === 'payment_required') throw adcpError('ACCOUNT_PAYMENT_REQUIRED', { field: 'account' });
    if (status === 'pending_approval') {
      throw adcpError('ACCOUNT_SETUP_REQUIRED', { field: 'account', details: { setup: account.setup ?? {} } });
    }
    if (status === 'rejected' || status === 'closed') {
      throw adcpError('ACCOUNT_NOT_FOUND', { message: `The account is ${status}.`, field: 'account' });
    }
  };

  /** Whether an assigned creative can run: it exists and is approved. */
  const runnable = async (principal: string, assignments: JsonObject[]): Promise<boolean> => {
    for (const a of assignments) {
      const creative =
        typeof a.creative_id === 'string' ? await records.get(principal, 'creative', a.creative_id) : undefined;
      if (creative?.body.status === 'approved') return true;
    }
    return false;
  };

  /** The caller's media buys: those named (one read each, in id order), else all of them. */
  const buysOf = async (principal: string, ids: Set<string> | undefined): Promise<KitRecord[]> => {
    if (ids === undefined) return await records.list(principal, 'media_buy');
    const found = await Promise.all([...ids].sort().map((id) => records.get(principal, 'media_buy', id)));
    return found.filter((b) => b !== undefined);
  };

  const buyToWire = (record: KitRecord): JsonObject => {
    const context = record.body.request_context;
    return {
      ...shown(record.body),
      ...(isJsonObject(context) ? { context } : {}),
      ...actionFields(record.body),
    };
  };

  /** Re-derives a live buy's status from its packages' creatives (pending_creatives -> pending_start/active). */
  const settleStatus = async (principal: string, body: JsonObject): Promise<void> => {
    const status = String(body.status);
    if (status !== 'pending_creatives' && status !== 'pending_start') return;
    const packages = jsonObjects(body.packages);
    const ready = await runnable(
      principal,
      packages.flatMap((p) => jsonObjects(p.creative_assignments)),
    );
    body.status = liveStatus(ready, timeOf(body.start_time, now()), now());
  };

  /**
   * Resolves requested packages against their products and pricing (create's `packages`, an
   * update's `new_packages` under `field`): every one priced in one currency, `currency` when given.
   */
  const resolvePackages = async (
    principal: string,
    requested: JsonObject[],
    field: string,
    fixedCurrency?: string,
  ): Promise<{ resolved: ProposedBuy['packages']; currency: string | undefined }> => {
    const resolved: ProposedBuy['packages'] = [];
    let currency = fixedCurrency;
    for (const [i, pkg] of requested.entries()) {
      const product = await findProduct(principal, pkg.product_id);
      if (product === undefined) {
        throw adcpError('PRODUCT_NOT_FOUND', {
          message: 'Referenced product IDs are unknown.',
          field: `${field}[${i}].product_id`,
        });
      }
      const option = (product.pricing_options as unknown as JsonObject[]).find(
        (o) => o.pricing_option_id === pkg.pricing_option_id,
      );
      if (option === undefined) {
        throw invalid(
          `Product ${product.product_id} has no pricing option ${String(pkg.pricing_option_id)}.`,
          `${field}[${i}].pricing_option_id`,
        );
      }
      const optionCurrency = String(option.currency);
      if (currency !== undefined && currency !== optionCurrency) {
        throw invalid('Every package of a media buy is priced in one currency.', `${field}[${i}].pricing_option_id`);
      }
      currency = optionCurrency;
      const budget = pkg.budget;
      if (typeof budget !== 'number' || !(budget >= 0 && budget <= MAX_BUDGET))
        throw invalid(`budget must be a number from 0 to ${MAX_BUDGET}.`, `${field}[${i}].budget`);
      if (typeof option.min_spend_per_package === 'number' && budget < option.min_spend_per_package) {
        throw adcpError('BUDGET_TOO_LOW', {
          message: `The budget is below this pricing option's minimum of ${option.min_spend_per_package} ${optionCurrency}.`,
          field: `${field}[${i}].budget`,
        });
      }
      if (isJsonObject(pkg.measurement_terms)) {
        const verdict = acceptTerms(pkg.measurement_terms, product);
        if (verdict !== true) {
          throw adcpError('TERMS_REJECTED', { message: verdict, field: `${field}[${i}].measurement_terms` });
        }
      }
      resolved.push({ request: pkg, product });
    }
    return { resolved, currency };
  };

  const createMediaBuy = async (args: JsonObject, ctx: ToolContext): Promise<JsonObject> => {
    const principal = ctx.principal;
    checkFlight(args.start_time, args.end_time, now());
    const accountId = await resolveAccount(principal, args.account, true);
    const requested =
      args.proposal_id === undefined
        ? jsonObjects(args.packages)
        : await proposals.packagesOf(args, principal, findProduct);
    if (requested.length === 0 || requested.length > MAX_IDS) {
      throw invalid(`packages must hold 1 to ${MAX_IDS} packages.`, 'packages');
    }
    const { resolved, currency } = await resolvePackages(principal, requested, 'packages');
    const total = isJsonObject(args.total_budget) ? args.total_budget : undefined;
    if (total !== undefined && currency !== undefined && total.currency !== currency) {
      throw invalid(
        `total_budget is in ${String(total.currency)}; the packages are priced in ${currency}.`,
        'total_budget.currency',
      );
    }
    await checkGoalSources(records, principal, accountId, requested);
    await checkAudiences(records, principal, accountId, requested);
    const key = typeof args.idempotency_key === 'string' ? args.idempotency_key : randomUUID();
    // The buyer's key names the buy: a create run again for the same key rewrites the same buy.
    const mediaBuyId = `mb_${hash(`${principal}\u0000${key}`)}`;
    const buy: ProposedBuy = {
      principal,
      mediaBuyId,
      accountId,
      request: args,
      packages: resolved,
      totalBudget: money(resolved.reduce((sum, p) => sum + (p.request.budget as number), 0)),
      currency: currency ?? 'USD',
    };
    const stored = await records.get(principal, 'directive', 'create_media_buy');
    // A directive of force_create_media_buy_arm not yet consumed shapes this answer, once.
    const forced = stored !== undefined && stored.body.consumed !== true ? stored.body : undefined;
    let decision: BuyDecision = (await seller.decide?.(buy, ctx)) ?? { kind: 'confirm' };
    if (stored !== undefined && forced !== undefined) {
      await records.put(principal, 'directive', 'create_media_buy', { ...forced, consumed: true }, stored.version);
      if (forced.arm === 'submitted') decision = { kind: 'approve', afterMs: 0 };
      if (forced.arm === 'input-required') {
        // The input-required arm (comply-test-controller.md: "the errors-branch"): the buyer must
        // answer (create-media-buy-async-response-input-required.json), no buy is made.
        const message = str(forced.message, 'The media buy needs your approval before it can be created.');
        return {
          status: 'input-required',
          message,
          reason: 'APPROVAL_REQUIRED',
          errors: [{ code: 'APPROVAL_REQUIRED', message, recovery: 'correctable' }],
        };
      }
    }
    if (decision.kind === 'reject') {
      throw new AdcpToolError(decision.code, decision.message, {
        recovery: 'correctable',
        ...(decision.field === undefined ? {} : { field: decision.field }),
      });
    }
    const actions = resolveBuyActions(resolved.map((p) => p.product));
    const confirm = async (): Promise<JsonObject> => {
      const at = iso(now());
      const body: JsonObject = {
        media_buy_id: mediaBuyId,
        kit_account_id: accountId,
        status: 'pending_creatives',
        currency: buy.currency,
        total_budget: buy.totalBudget,
        start_time: args.start_time === 'asap' ? at : args.start_time,
        end_time: args.end_time,
        confirmed_at: at,
        created_at: at,
        updated_at: at,
        revision: 1,
        packages: resolved.map(({ request, product }, i) =>
          packageOf(request, product, packageIdOf(mediaBuyId, i + 1), buy.currency),
        ),
        ...(isJsonObject(args.context) ? { request_context: args.context } : {}),
        ...(actions === undefined ? {} : { kit_actions: actions }),
      };
      appendHistory(body, {
        revision: 1,
        timestamp: at,
        actor: principal,
        action: 'created',
        summary: `Created with ${resolved.length} package(s), ${buy.totalBudget} ${buy.currency}.`,
      });
      await settleStatus(principal, body);
      await save(principal, 'media_buy', mediaBuyId, body, 0).catch(async (error: unknown) => {
        // The same key again (a create whose first run died before answering) keeps the first buy.
        if ((await records.get(principal, 'media_buy', mediaBuyId)) === undefined) throw error;
      });
      const stored = (await records.get(principal, 'media_buy', mediaBuyId)) as KitRecord;
      const wire = buyToWire(stored);
      const { context: _context, status, ...rest } = wire;
      return { ...rest, media_buy_status: status };
    };
    if (decision.kind === 'approve') {
      const { afterMs, review, workingAfterMs } = decision;
      const message =
        typeof forced?.message === 'string' ? forced.message : (decision.message ?? 'Media buy submitted for approval');
      // The submitted arm answers with the directive's task_id, verbatim (comply-test-controller.md).
      const taskId = typeof forced?.task_id === 'string' ? forced.task_id : undefined;
      return await ctx.submit(
        async (progress) => {
          let waited = 0;
          if (workingAfterMs !== undefined && (review !== undefined || workingAfterMs < afterMs)) {
            await sleep(workingAfterMs, progress.signal);
            await progress.working('Media buy under review', { percentage: 50, step: 'review' });
            waited = workingAfterMs;
          }
          const verdict =
            review === undefined
              ? (await sleep(afterMs - waited, progress.signal), decision.reject ?? true)
              : await review({ mediaBuyId, signal: progress.signal });
          if (verdict !== true) throw new AdcpToolError(verdict.code, verdict.message, { recovery: 'correctable' });
          return await confirm();
        },
        { message, ...(taskId === undefined ? {} : { taskId }) },
      );
    }
    return await confirm();
  };

  /**
   * `update_media_buy`, the one home of its rules; `sync_creatives` assigns through it too
   * (src/kit/creative-sync.ts): `pending` names creatives that request is about to write (they
   * count as found), and `write: false` checks the change without writing it.
   */
  const updateMediaBuy = async (
    args: JsonObject,
    ctx: ToolContext,
    options: { pending?: ReadonlySet<string>; write?: boolean } = {},
  ): Promise<JsonObject> => {
    const principal = ctx.principal;
    const id = String(args.media_buy_id);
    const record = await records.get(principal, 'media_buy', id);
    if (record === undefined)
      throw adcpError('MEDIA_BUY_NOT_FOUND', { message: `No media buy ${id}.`, field: 'media_buy_id' });
    await resolveAccount(principal, args.account, true);
    const body = structuredClone(record.body);
    const status = String(body.status);
    if (typeof args.revision === 'number' && args.revision !== body.revision) {
      throw adcpError('CONFLICT', {
        message: `The media buy is at revision ${String(body.revision)}, not ${args.revision}.`,
        field: 'revision',
        details: { current_revision: body.revision },
      });
    }
    if (args.canceled === true) {
      if (TERMINAL_STATUSES.includes(status)) throw notCancellable(status);
    } else if (TERMINAL_STATUSES.includes(status)) throw notUpdatable(status);
    const actions = actionsOf(body);
    if (actions !== undefined) enforceActions(actions, requestedActions(args, body, now()), status);
    // An end alone must still be ahead; a new start is checked as a create's is.
    checkFlight(args.start_time ?? 'asap', args.end_time ?? body.end_time, now());
    const packages = jsonObjects(body.packages);
    const affected = new Map<string, JsonObject>();
    for (const [i, change] of jsonObjects(args.packages).entries()) {
      const pkg = packages.find((p) => p.package_id === change.package_id);
      if (pkg === undefined) {
        throw adcpError('PACKAGE_NOT_FOUND', {
          message: `No package ${String(change.package_id)} in ${id}.`,
          field: `packages[${i}].package_id`,
        });
      }
      if (pkg.canceled === true)
        throw adcpError('INVALID_STATE', { message: 'The package is canceled.', field: `packages[${i}]` });
      if (change.budget !== undefined) {
        if (typeof change.budget !== 'number' || !(change.budget >= 0 && change.budget <= MAX_BUDGET))
          throw invalid(`budget must be a number from 0 to ${MAX_BUDGET}.`, `packages[${i}].budget`);
        pkg.budget = change.budget;
      }
      if (typeof change.bid_price === 'number') pkg.bid_price = change.bid_price;
      if (typeof change.paused === 'boolean') pkg.paused = change.paused;
      // package-update.json: "the full overlay replaces the previous one".
      if (isJsonObject(change.targeting_overlay)) pkg.targeting_overlay = change.targeting_overlay;
      if (change.canceled === true) pkg.canceled = true;
      if (Array.isArray(change.creative_assignments)) {
        for (const [j, a] of jsonObjects(change.creative_assignments).entries()) {
          if (
            typeof a.creative_id !== 'string' ||
            (options.pending?.has(a.creative_id) !== true &&
              (await records.get(principal, 'creative', a.creative_id)) === undefined)
          ) {
            throw adcpError('CREATIVE_NOT_FOUND', { field: `packages[${i}].creative_assignments[${j}].creative_id` });
          }
        }
        pkg.creative_assignments = jsonObjects(change.creative_assignments);
      }
      affected.set(String(pkg.package_id), pkg);
    }
    // The buy's own account holds the audiences and sources its packages may name (decision 0321).
    const buyAccount = str(body.kit_account_id, accountIdOf({}));
    await checkAudiences(records, principal, buyAccount, jsonObjects(args.packages));
    // add_packages: new packages as a create's, in the buy's currency, numbered after the others.
    const added = jsonObjects(args.new_packages);
    if (added.length > 0) {
      if (packages.length + added.length > MAX_IDS) {
        throw invalid(`A media buy holds at most ${MAX_IDS} packages.`, 'new_packages');
      }
      const { resolved } = await resolvePackages(principal, added, 'new_packages', String(body.currency));
      await checkGoalSources(records, principal, buyAccount, added, 'new_packages');
      await checkAudiences(records, principal, buyAccount, added, 'new_packages');
      for (const { request, product } of resolved) {
        let n = packages.length + 1;
        while (packages.some((p) => p.package_id === packageIdOf(id, n))) n += 1;
        const pkg = packageOf(request, product, packageIdOf(id, n), String(body.currency));
        packages.push(pkg);
        affected.set(String(pkg.package_id), pkg);
      }
      body.packages = packages;
    }
    for (const field of ['start_time', 'end_time'] as const) {
      if (typeof args[field] === 'string') body[field] = args[field] === 'asap' ? iso(now()) : args[field];
    }
    let next = status;
    if (args.canceled === true) {
      next = assertTransitionOrState(status, 'canceled');
      body.cancellation = {
        canceled_at: iso(now()),
        canceled_by: 'buyer',
        ...(typeof args.cancellation_reason === 'string' ? { reason: args.cancellation_reason } : {}),
      };
    } else if (args.paused === true) {
      next = assertTransitionOrState(status, 'paused');
    } else if (args.paused === false && status === 'paused') {
      body.status = 'pending_creatives';
      await settleStatus(principal, body);
      next = String(body.status);
    }
    body.status = next;
    await settleStatus(principal, body);
    body.total_budget = money(
      packages.filter((p) => p.canceled !== true).reduce((s, p) => s + Number(p.budget ?? 0), 0),
    );
    body.revision = Number(body.revision ?? 1) + 1;
    body.updated_at = iso(now());
    if (options.write === false) return {};
    appendHistory(
      body,
      updateEntry(record.body, body, {
        revision: body.revision as number,
        timestamp: body.updated_at as string,
        actor: principal,
      }),
    );
    await save(principal, 'media_buy', id, body, record.version);
    return {
      media_buy_id: id,
      media_buy_status: body.status,
      revision: body.revision,
      currency: body.currency,
      total_budget: body.total_budget,
      implementation_date: iso(now()),
      affected_packages: [...affected.values()],
      ...actionFields(body),
    };
  };

  const tools: AdcpToolDefinition[] = [
    {
      name: 'get_products',
      description: 'Discover advertising products matching a brief and filters.',
      handler: async (args, ctx) => {
        const filters = isJsonObject(args.filters) ? args.filters : {};
        const brief = typeof args.brief === 'string' ? args.brief : undefined;
        const listed = (await allProducts(ctx.principal, brief, filters)).flatMap(({ product, key }) => {
          const shownProduct = filterProduct(product, filters);
          return shownProduct === undefined ? [] : [{ product: shownProduct, key }];
        });
        const products = listed.map((l) => l.product);
        if (args.buying_mode === 'refine') {
          const refined = await proposals.refine(args, ctx.principal, products);
          return { ...refined, products: refined.products as unknown as JsonObject[], cache_scope: 'account' };
        }
        const query = readPageQuery(args);
        const page = pageOf(listed, (l) => l.key, query);
        // Proposals answer a brief, on its first page.
        const offered =
          brief !== undefined && query.after === undefined
            ? await proposals.propose({ brief, filters, principal: ctx.principal }, products)
            : undefined;
        // Seeded products and proposals are this caller's own: the answer is then an account overlay.
        const seeded = (await records.list(ctx.principal, 'product', 1)).length > 0;
        return {
          products: page.items.map((l) => l.product) as unknown as JsonObject[],
          ...(offered !== undefined && offered.length > 0 ? { proposals: offered } : {}),
          pagination: page.pagination,
          cache_scope: seeded || (offered?.length ?? 0) > 0 ? 'account' : 'public',
        };
      },
    },
    {
      name: 'create_media_buy',
      description: "Create a media buy: confirmed at once, or submitted for the seller's approval.",
      handler: createMediaBuy,
    },
    {
      name: 'update_media_buy',
      description: 'Pause, resume, cancel, re-budget, re-bid or assign creatives to a media buy.',
      handler: (args, ctx) => updateMediaBuy(args, ctx),
    },
    {
      name: 'get_media_buys',
      description: 'Media buys with their status, packages and valid actions, paged by cursor.',
      handler: async (args, ctx) => {
        const ids = idList(args.media_buy_ids, 'media_buy_ids');
        // get-media-buys-request.json: status_filter defaults to ["active"] when media_buy_ids is omitted.
        const statuses =
          idList(args.status_filter, 'status_filter') ?? (ids === undefined ? new Set(['active']) : undefined);
        const buys = (await buysOf(ctx.principal, ids)).filter(
          (b) => statuses === undefined || statuses.has(String(b.body.status)),
        );
        const history = readIncludeHistory(args.include_history);
        const page = pageOf(buys, (b) => b.id, readPageQuery(args));
        const asOf = iso(now());
        const media_buys = await Promise.all(
          page.items.map(async (b) => {
            const wire = buyToWire(b);
            if (history > 0) wire.history = historyOf(b.body, history);
            if (args.include_snapshot === true) {
              const delivered = (await records.get(ctx.principal, 'delivery', b.id))?.body ?? {};
              const snapshot = snapshotOf(b.body, delivered, asOf);
              wire.packages = jsonObjects(wire.packages).map((p) => ({ ...p, snapshot }));
            }
            return wire;
          }),
        );
        return { media_buys, pagination: page.pagination };
      },
    },
    {
      name: 'get_media_buy_delivery',
      description: 'Delivery totals of media buys, per package.',
      handler: async (args, ctx) => {
        const ids = idList(args.media_buy_ids, 'media_buy_ids');
        const named = await buysOf(ctx.principal, ids);
        if (ids !== undefined && named.length !== ids.size) {
          throw adcpError('MEDIA_BUY_NOT_FOUND', { field: 'media_buy_ids' });
        }
        const statuses = idList(args.status_filter, 'status_filter');
        const buys = named.filter((b) => statuses === undefined || statuses.has(String(b.body.status)));
        const query = readDeliveryQuery(args);
        if (query.startDate !== undefined || query.endDate !== undefined || query.granularity !== undefined) {
          const productIds = new Set(buys.flatMap((b) => jsonObjects(b.body.packages).map((p) => p.product_id)));
          const products = await Promise.all([...productIds].map((id) => findProduct(ctx.principal, id)));
          checkCapabilities(
            query,
            products.flatMap((p) => (isJsonObject(p?.reporting_capabilities) ? [p.reporting_capabilities] : [])),
          );
        }
        const period = reportingPeriod(
          query,
          buys.map((b) => b.body),
          now(),
        );
        const deliveries = await Promise.all(
          buys.map(async (b) =>
            buyDelivery(b.body, (await records.get(ctx.principal, 'delivery', b.id))?.body ?? {}, query, period),
          ),
        );
        return {
          currency: str(buys[0]?.body.currency, 'USD'),
          reporting_period: { start: iso(period.start), end: iso(period.end) },
          media_buy_deliveries: deliveries,
        };
      },
    },
    {
      name: 'sync_creatives',
      description: "Create or update creatives in the library (reviewed per the seller's approval mode).",
      handler: syncCreatives({
        records,
        seller,
        now,
        accountOf: accountOfRef,
        updateBuy: updateMediaBuy,
        settleWaiting: async (principal) => {
          for (const buy of await records.list(principal, 'media_buy')) {
            if (buy.body.status !== 'pending_creatives') continue;
            const body = structuredClone(buy.body);
            await settleStatus(principal, body);
            if (body.status !== buy.body.status) await records.put(principal, 'media_buy', buy.id, body, buy.version);
          }
        },
      }),
    },
    {
      name: 'list_creatives',
      description: 'Creatives in the library, filtered and sorted as the buyer asks, paged by cursor.',
      handler: async (args, ctx) =>
        listCreatives({
          args,
          creatives: await records.list(ctx.principal, 'creative'),
          buys: await records.list(ctx.principal, 'media_buy'),
          accountOf: accountOfRef,
          show: shown,
        }),
    },
    {
      name: 'list_creative_formats',
      description: 'The creative formats this seller accepts, filtered as the buyer asks, paged by cursor.',
      handler: async (args, ctx) => {
        const seeded = (await records.list(ctx.principal, 'format')).map((r) => shown(r.body) as unknown as Format);
        const known = [...seeded, ...(seller.formats ?? [])];
        // A format a seeded product advertises resolves too, named by its id when nothing describes it
        // (media_buy_seller, list_formats_integrity: "The sales agent MUST return the format it
        // advertised on its own product").
        const ids = new Set(known.map((f) => formatKey(f.format_id)));
        for (const product of await records.list(ctx.principal, 'product')) {
          for (const f of jsonObjects(product.body.format_ids)) {
            if (typeof f.id !== 'string' || typeof f.agent_url !== 'string' || ids.has(formatKey(f))) continue;
            ids.add(formatKey(f));
            known.push({ format_id: { agent_url: f.agent_url, id: f.id }, name: f.id });
          }
        }
        // By id, then agent: one format per (agent, id), the first definition of it kept.
        const keyOf = (f: Format) => sortKey(f.format_id.id, formatKey(f.format_id));
        const unique = new Map<string, Format>();
        for (const f of known) if (!unique.has(keyOf(f))) unique.set(keyOf(f), f);
        const formats = sortByKey(
          [...unique.values()].filter((f) => formatPasses(f as unknown as JsonObject, args)),
          keyOf,
        );
        const page = pageOf(formats, keyOf, readPageQuery(args));
        return { formats: page.items as unknown as JsonObject[], pagination: page.pagination };
      },
    },
    {
      name: 'sync_accounts',
      description: 'Establish or update account relationships (brand + operator, or an account reference).',
      handler: async (args, ctx) => {
        const results: JsonObject[] = [];
        for (const [i, entry] of jsonObjects(args.accounts).entries()) {
          // Settings-update mode (`account`): an existing account only, never a new one.
          const ref = isJsonObject(entry.account) ? entry.account : undefined;
          let id: string;
          let existing: KitRecord | undefined;
          if (ref !== undefined) {
            id = accountOfRef(ref);
            existing = await records.get(ctx.principal, 'account', id);
            if (existing === undefined) {
              throw adcpError('UNSUPPORTED_PROVISIONING', {
                message: 'No such account to update; provision it with brand, operator and billing.',
                field: `accounts[${i}].account`,
              });
            }
          } else {
            if (!isJsonObject(entry.brand) || typeof entry.operator !== 'string') {
              throw invalid('Each account names its brand and operator, or an account to update.', `accounts[${i}]`);
            }
            id = accountIdOf(entry);
            existing = await records.get(ctx.principal, 'account', id);
          }
          const brand = (ref === undefined ? entry.brand : existing?.body.brand) as JsonObject;
          const operator = String(ref === undefined ? entry.operator : existing?.body.operator);
          const configs = notificationConfigs(entry.notification_configs, ctx.webhooks.reach, id);
          const fail = (...errors: JsonObject[]) =>
            results.push({ account_id: id, brand, operator, action: 'failed', status: 'rejected', errors });
          if (configs.error !== undefined) {
            fail({ code: 'INVALID_REQUEST', message: configs.error.message, field: configs.error.field });
            continue;
          }
          const refused = ref === undefined ? await billingRefusal(entry.billing, ctx.principal) : undefined;
          if (refused !== undefined) {
            fail(refused);
            continue;
          }
          const proof =
            configs.subscribers === undefined
              ? undefined
              : await proveSubscribers(
                  configs.subscribers,
                  isJsonObject(existing?.body.kit_proofs) ? existing.body.kit_proofs : {},
                  id,
                  ctx,
                  args.dry_run === true,
                );
          if (proof !== undefined && proof.errors.length > 0) {
            fail(...proof.errors);
            continue;
          }
          const status =
            existing === undefined ? (seller.openAccount?.(entry) ?? 'active') : String(existing.body.status);
          const body: JsonObject = {
            ...existing?.body,
            account_id: id,
            name: `${str(brand.domain, str(brand.brand_id, id))} c/o ${operator}`,
            brand,
            operator,
            status,
            account_scope: operator === brand.domain ? 'brand' : 'operator_brand',
            ...(typeof entry.billing === 'string' ? { billing: entry.billing } : {}),
            ...(typeof entry.payment_terms === 'string' ? { payment_terms: entry.payment_terms } : {}),
            ...(entry.sandbox === true ? { sandbox: true } : {}),
            ...(proof === undefined ? {} : { notification_configs: proof.configs, kit_proofs: proof.proofs }),
          };
          if (args.dry_run !== true) await save(ctx.principal, 'account', id, body, existing?.version ?? 0);
          const { name: _name, ...shownBody } = shown(body);
          results.push({
            ...shownBody,
            action: existing === undefined ? 'created' : 'updated',
            ...(proof === undefined || proof.warnings.length === 0 ? {} : { warnings: proof.warnings }),
          });
        }
        return { ...(args.dry_run === true ? { dry_run: true } : {}), accounts: results };
      },
    },
    {
      name: 'list_accounts',
      description: 'The accounts this caller holds (status, sandbox filters), paged by cursor.',
      handler: async (args, ctx) => {
        const ref = isJsonObject(args.account) ? args.account : undefined;
        const only = ref === undefined ? undefined : accountOfRef(ref);
        const accounts = (await records.list(ctx.principal, 'account'))
          .filter((a) => only === undefined || a.id === only)
          .filter((a) => args.status === undefined || a.body.status === args.status)
          .filter((a) => args.sandbox === undefined || (a.body.sandbox === true) === args.sandbox);
        const page = pageOf(accounts, (a) => a.id, readPageQuery(args));
        return { accounts: page.items.map((a) => shown(a.body)), pagination: page.pagination };
      },
    },
    {
      name: 'sync_governance',
      description: 'Register the governance agent of an account.',
      handler: async (args, ctx) => {
        const results: JsonObject[] = [];
        for (const [i, entry] of jsonObjects(args.accounts).entries()) {
          const id = await resolveAccount(ctx.principal, entry.account, false);
          const agents = jsonObjects(entry.governance_agents);
          if (agents.length !== 1 || typeof agents[0]?.url !== 'string' || !agents[0].url.startsWith('https://')) {
            throw invalid(
              'Each account registers exactly one https governance agent.',
              `accounts[${i}].governance_agents`,
            );
          }
          // The credentials are the seller's to use when calling the agent: stored, never echoed.
          const existing = await records.get(ctx.principal, 'governance', id);
          await records.put(ctx.principal, 'governance', id, { url: agents[0].url }, existing?.version ?? 0);
          results.push({
            account: entry.account,
            status: 'synced',
            governance_agents: [{ url: agents[0].url }],
          });
        }
        return { accounts: results };
      },
    },
    {
      name: 'provide_performance_feedback',
      description: "Record the buyer's performance feedback on a media buy.",
      handler: async (args, ctx) => {
        const id = String(args.media_buy_id);
        if ((await records.get(ctx.principal, 'media_buy', id)) === undefined) {
          throw adcpError('MEDIA_BUY_NOT_FOUND', { field: 'media_buy_id' });
        }
        const key = `${id}:${typeof args.idempotency_key === 'string' ? args.idempotency_key : randomUUID()}`;
        const { context: _c, idempotency_key: _k, ...feedback } = args;
        await records.put(ctx.principal, 'feedback', key, { ...feedback, received_at: iso(now()) }, 0);
        return { success: true };
      },
    },
  ];

  tools.push({
    name: 'get_account_financials',
    description: "An account's spend (from its media buys' reported delivery), payment status and terms.",
    handler: async (args, ctx) => {
      const id = await resolveAccount(ctx.principal, args.account, false);
      const account = (await records.get(ctx.principal, 'account', id))?.body ?? {};
      const day = (ms: number) => iso(ms).slice(0, 10);
      const today = now();
      const monthStart = Date.UTC(new Date(today).getUTCFullYear(), new Date(today).getUTCMonth(), 1);
      const period = isJsonObject(args.period) ? args.period : { start: day(monthStart), end: day(today) };
      const buys = (await records.list(ctx.principal, 'media_buy')).filter((b) => b.body.kit_account_id === id);
      let spend = 0;
      for (const buy of buys) {
        const simulated = (await records.get(ctx.principal, 'delivery', buy.id))?.body ?? {};
        spend += deliveryTotals(simulated).spend as number;
      }
      const status = str(account.status, 'active');
      return {
        account: args.account as JsonObject,
        currency: str(buys[0]?.body.currency, 'USD'),
        period,
        timezone: 'UTC',
        spend: { total_spend: money(spend), media_buy_count: buys.length },
        payment_status: status === 'suspended' ? 'suspended' : status === 'payment_required' ? 'past_due' : 'current',
        ...(typeof account.payment_terms === 'string' ? { payment_terms: account.payment_terms } : {}),
      };
    },
  });
  tools.push(...previewTools(now));
  tools.push(
    ...buildTools({
      records,
      seller,
      formats: async (principal) => [
        ...(await records.list(principal, 'format')).map((r) => shown(r.body) as unknown as Format),
        ...(seller.formats ?? []),
      ],
      assetsOf: (body) => (isJsonObject(body.kit_assets) ? body.kit_assets : undefined),
    }),
  );

  const minimumSize = Math.max(1, Math.floor(seller.audienceMinimumSize ?? 1));
  tools.push(
    ...conversionTools({ records, now, resolveAccount }),
    ...audienceTools({ records, now, minimumSize, resolveAccount }),
    ...catalogTools({ records, now, resolveAccount }),
  );

  return {
    tools,
    scenarios: kitScenarios({ records, now }),
    capabilities: {
      media_buy: {
        creative_approval_mode: seller.creativeApproval === 'manual' ? 'manual' : 'auto_approve',
        buying_modes: ['brief', 'refine'],
        ...(proposals.supported ? { supports_proposals: true } : {}),
        // sync_event_sources and log_event; one event_id counts once across sources.
        conversion_tracking: { multi_source_event_dedup: true },
        // sync_audiences: members matched on hashed email or phone, the platform's customer id, or uids.
        audience_targeting: {
          supported_identifier_types: ['hashed_email', 'hashed_phone'],
          supports_platform_customer_id: true,
          minimum_audience_size: minimumSize,
        },
        // The same two as feature flags (media-buy-features.json admits more booleans): the
        // official runner (@adcp/sdk 6.11) reads only these before calling sync_event_sources,
        // log_event and sync_audiences (decision 0205, M).
        features: { conversion_tracking: true, audience_targeting: true },
      },
      creative: {
        has_creative_library: true,
        // build_creative: the kit retrieves; transforming and generating are the seller's build.
        ...(seller.build === undefined ? {} : { supports_transformation: true, supports_generation: true }),
      },
      account: { supported_billing: supportedBilling },
    },
  };
}

/** A buy's package as stored and answered (core/package.json), from its request and product. */
function packageOf(request: JsonObject, product: Product, packageId: string, currency: string): JsonObject {
  return {
    package_id: packageId,
    product_id: product.product_id,
    pricing_option_id: request.pricing_option_id,
    budget: request.budget,
    currency,
    ...(typeof request.bid_price === 'number' ? { bid_price: request.bid_price } : {}),
    ...(Array.isArray(request.format_ids) ? { format_ids: request.format_ids } : {}),
    ...(isJsonObject(request.targeting_overlay) ? { targeting_overlay: request.targeting_overlay } : {}),
    ...(isJsonObject(request.measurement_terms) ? { measurement_terms: request.measurement_terms } : {}),
    creative_assignments: jsonObjects(request.creative_assignments),
    paused: request.paused === true,
    ...(isJsonObject(request.context) ? { context: request.context } : {}),
  };
}

/** Event types anchored at a media buy or below: not for account-level subscribers (sync-accounts-request.json). */
const BUY_ANCHORED = new Set(['scheduled', 'final', 'delayed', 'adjusted', 'impairment']);
const MAX_SUBSCRIBERS = 16;
const LEGACY_MODES = new Set(['Bearer', 'HMAC-SHA256']);

/** One account-level subscriber as sent: the entry to store and echo, and what its activation needs. */
interface Subscriber {
  /** Index in the sent `notification_configs`. */
  index: number;
  /** As stored and echoed: normalized URL, no credentials, `active: false` until proven. */
  config: JsonObject;
  /** The buyer asked for it active (`active` defaults to true). */
  wantsActive: boolean;
  /** core/webhook-challenge.json `delivery_auth`: `rfc9421`, or the legacy mode and its credential's fingerprint. */
  deliveryAuth: JsonObject;
  /**
   * The proof tuple (sync-accounts-request.json, "Activation proof": account, subscriber, normalized
   * URL, auth mode and credential binding, normalized event types) as one SHA-256: a proof is
   * reused only for the very same tuple.
   */
  tuple: string;
}

/**
 * An account entry's `notification_configs` (declarative replace, keyed by `subscriber_id`): the
 * subscribers to prove and persist, undefined when the field is absent (existing subscribers
 * kept), or the error of the entry (a duplicate subscriber, a refused URL, a media-buy event
 * type). Every URL is checked at write time, a paused one's too, with what the server lets a
 * webhook reach (`reach`). Credentials are write-only: only their fingerprint is kept, in `tuple`.
 */
function notificationConfigs(
  value: unknown,
  reach: OutboundReach,
  accountId: string,
): { subscribers?: Subscriber[]; error?: { field: string; message: string } } {
  if (value === undefined) return {};
  const configs = jsonObjects(value);
  if (configs.length > MAX_SUBSCRIBERS) {
    return { error: { field: 'notification_configs', message: `At most ${MAX_SUBSCRIBERS} subscribers.` } };
  }
  const seen = new Set<unknown>();
  const subscribers: Subscriber[] = [];
  for (const [i, config] of configs.entries()) {
    if (seen.has(config.subscriber_id)) {
      return {
        error: { field: `notification_configs[${i}].subscriber_id`, message: 'subscriber_id appears twice.' },
      };
    }
    seen.add(config.subscriber_id);
    // Even a paused subscriber's URL is checked at write time: https, no userinfo, no special-use
    // address literal (sync-accounts-request.json, "Activation proof").
    const url = checkOutboundUrl(typeof config.url === 'string' ? config.url : '', { reach });
    if (!url.ok) {
      return {
        error: { field: `notification_configs[${i}].url`, message: `The subscriber URL is refused: ${url.reason}.` },
      };
    }
    const types = Array.isArray(config.event_types) ? config.event_types : [];
    const bad = types.findIndex((t) => typeof t !== 'string' || BUY_ANCHORED.has(t));
    if (bad >= 0) {
      return {
        error: {
          field: `notification_configs[${i}].event_types[${bad}]`,
          message: `${String(types[bad])} is a media-buy event: register it on the buy's push_notification_config.`,
        },
      };
    }
    let deliveryAuth: JsonObject = { mode: 'rfc9421' };
    const auth = isJsonObject(config.authentication) ? config.authentication : undefined;
    if (auth !== undefined) {
      const mode = Array.isArray(auth.schemes) && auth.schemes.length === 1 ? auth.schemes[0] : undefined;
      if (typeof mode !== 'string' || !LEGACY_MODES.has(mode) || typeof auth.credentials !== 'string') {
        return {
          error: {
            field: `notification_configs[${i}].authentication`,
            message: 'authentication names one scheme (Bearer or HMAC-SHA256) and its credentials.',
          },
        };
      }
      deliveryAuth = { mode, credential_fingerprint: createHash('sha256').update(auth.credentials).digest('hex') };
    }
    const sortedTypes = [...new Set(types as string[])].sort();
    const tuple = createHash('sha256')
      .update(JSON.stringify([accountId, config.subscriber_id, url.url.href, deliveryAuth, sortedTypes]))
      .digest('hex');
    subscribers.push({
      index: i,
      config: {
        subscriber_id: config.subscriber_id,
        url: url.url.href,
        event_types: types,
        ...(auth === undefined ? {} : { authentication: { schemes: auth.schemes } }),
        active: false,
      },
      wantsActive: config.active !== false,
      deliveryAuth,
      tuple,
    });
  }
  return { subscribers };
}

/** Why a challenge did not prove control, as the buyer is told (no network detail: security.md, SSRF rule 6). */
const CHALLENGE_FAILURES: Record<string, string> = {
  wrong_echo: 'did not echo the proof-of-control challenge',
  http_status: 'answered the proof-of-control challenge with an error status',
  redirect_refused: 'answered the proof-of-control challenge with a redirect, which is not followed',
  unsafe_url: 'resolves to an address this seller does not call',
  no_answer: 'gave no answer to the proof-of-control challenge in time',
  aborted: 'gave no answer to the proof-of-control challenge in time',
};

/**
 * Activation proof (sync-accounts-request.json, `notification_configs`; decision 0218): each
 * subscriber asked active whose tuple has no proof yet is sent the proof-of-control challenge
 * (all of one account at once) and becomes `active: true` only once it echoed it; a subscriber
 * whose tuple was proven before is active without a new challenge. Any failed challenge fails
 * the account entry (`errors`, VALIDATION_ERROR at `notification_configs[j].url`), the prior set
 * kept. When no challenge can be sent (a dry run; a server without a webhook signing key) the
 * subscriber is stored paused, with a warning. Returns the configs to store, their proofs (by
 * `subscriber_id`; a paused subscriber keeps a still-valid one) and the warnings.
 */
async function proveSubscribers(
  subscribers: Subscriber[],
  proven: Record<string, unknown>,
  accountId: string,
  ctx: ToolContext,
  dryRun: boolean,
): Promise<{ configs: JsonObject[]; proofs: Record<string, string>; warnings: string[]; errors: JsonObject[] }> {
  const proofs: Record<string, string> = {};
  const warnings: string[] = [];
  const errors: JsonObject[] = [];
  const outcomes = await Promise.all(
    subscribers.map(async (s) => {
      const id = String(s.config.subscriber_id);
      if (proven[id] === s.tuple) return 'proven' as const;
      if (!s.wantsActive) return 'paused' as const;
      if (dryRun) return 'dry_run' as const;
      return await ctx.webhooks.challenge(String(s.config.url), {
        account_id: accountId,
        subscriber_id: id,
        delivery_auth: s.deliveryAuth,
        event_types: s.config.event_types,
      });
    }),
  );
  const configs = subscribers.map((s, i) => {
    const outcome = outcomes[i]!;
    const at = `notification_configs[${s.index}]`;
    if (outcome === 'proven' || (typeof outcome === 'object' && outcome.ok)) {
      proofs[String(s.config.subscriber_id)] = s.tuple;
      return { ...s.config, active: s.wantsActive };
    }
    if (outcome === 'dry_run') warnings.push(`${at}: a dry run sends no proof-of-control challenge; shown paused.`);
    else if (typeof outcome === 'object' && outcome.reason === 'unavailable') {
      warnings.push(
        `${at}: stored paused: this seller cannot send the proof-of-control challenge (no webhook signing key or public URL).`,
      );
    } else if (typeof outcome === 'object') {
      errors.push({
        code: 'VALIDATION_ERROR',
        message: `The subscriber URL ${CHALLENGE_FAILURES[outcome.reason] ?? 'did not prove control'}.`,
        field: `${at}.url`,
        recovery: 'correctable',
        details: { reason: outcome.reason, ...(outcome.status === undefined ? {} : { status: outcome.status }) },
      });
    }
    return s.config;
  });
  return { configs, proofs, warnings, errors };
}

/** A status move a buyer asked for; one the lifecycle refuses is INVALID_STATE. */
function assertTransitionOrState(from: string, to: string): string {
  try {
    return assertTransition('media_buy', from, to);
  } catch {
    throw adcpError('INVALID_STATE', {
      message: `A media buy cannot go from ${from} to ${to}.`,
      details: { current_status: from },
    });
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, Math.max(0, ms));
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}
