import type { JsonObject } from '../core/types.js';
import { createMediaBuyKit, type MediaBuyKit } from '../kit/media-buy-kit.js';
import type { BuyDecision, ProposalDraft, ProposedBuy } from '../kit/seller.js';
import type { BillingParty, Format, Product } from '../schemas/generated/adcp-3.1.js';
import { ControllerError, type ControllerScenario } from '../server/tools/test-controller.js';
import { CATALOG, findProduct, productToWire, searchCatalog } from './catalog.js';
import type { SellerDb } from './seller-db.js';
import { sellerKitRecords } from './seller-kit-records.js';

export interface SellerTimings {
  /** Delay before a submitted media buy reports `working` (ms). Default 500. */
  workingAfterMs: number;
  /** Delay before it completes (ms, from submission). Default 2000. */
  completeAfterMs: number;
}

/**
 * How the reference seller approves a new media buy (`adcp serve --approval`):
 * - `auto`: confirmed at once, except a buy of a guaranteed product whose buyer registered a
 *   webhook, which waits for its IO to be signed (`submitted`, completed after the review time).
 *   What the compliance storyboards expect (sales-guaranteed: IO approval is scoped to creates
 *   of guaranteed products); the `--sandbox` default.
 * - `review`: every buy of a catalog product is `submitted`, reports `working`, and is confirmed
 *   after the review time; buys of controller-seeded products only, without a webhook, are
 *   confirmed at once. The default otherwise (the demo's async flow).
 * - `manual`: every buy stays `submitted` until it is approved or rejected through
 *   `comply_test_controller` `force_media_buy_status` on the `media_buy_id` the submitted message names.
 */
export type ApprovalMode = 'auto' | 'review' | 'manual';
export const APPROVAL_MODES: readonly ApprovalMode[] = ['auto', 'review', 'manual'];

export interface SellerPolicy {
  approval: ApprovalMode;
  timings: SellerTimings;
  /**
   * Buyer agents onboarded passthrough-only (`adcp serve --passthrough-principal`): only the
   * operator may be invoiced on their accounts, so `billing: agent` answers
   * BILLING_NOT_PERMITTED_FOR_AGENT suggesting `operator` (billing_gate_dispatch storyboard).
   */
  passthroughPrincipals?: ReadonlySet<string>;
}

/** Who the reference seller may invoice (`account.supported_billing`). */
const SUPPORTED_BILLING: BillingParty[] = ['operator', 'agent'];

/** How often a buy in manual review looks for its decision (ms). */
const MANUAL_POLL_MS = 200;

/** Every format a catalog product names, once (list_creative_formats). */
function catalogFormats(): Format[] {
  const seen = new Map<string, Format>();
  for (const product of CATALOG) {
    for (const id of product.format_ids) {
      if (!seen.has(id.id)) seen.set(id.id, { format_id: id, name: id.id.replaceAll('_', ' ') });
    }
  }
  return [...seen.values()];
}

/**
 * The reference seller's plans for a brief: the two best-ranked guaranteed products as one plan,
 * the two best-ranked auction products as another (60/40, or all on one), each when it has any.
 */
function proposePlans(products: readonly Product[]): ProposalDraft[] {
  const plan = (name: string, picked: Product[]): ProposalDraft[] => {
    const [first, second] = picked;
    if (first === undefined) return [];
    return [
      {
        name,
        allocations:
          second === undefined
            ? [{ product_id: first.product_id, allocation_percentage: 100 }]
            : [
                { product_id: first.product_id, allocation_percentage: 60 },
                { product_id: second.product_id, allocation_percentage: 40 },
              ],
      },
    ];
  };
  return [
    ...plan(
      'Guaranteed plan',
      products.filter((p) => p.delivery_type === 'guaranteed'),
    ),
    ...plan(
      'Auction plan',
      products.filter((p) => p.delivery_type !== 'guaranteed'),
    ),
  ];
}

/** The seller's decision of a new buy under its approval mode (see `ApprovalMode`). */
async function decideBuy(db: SellerDb, policy: SellerPolicy, buy: ProposedBuy): Promise<BuyDecision> {
  const { timings } = policy;
  const review = { afterMs: timings.completeAfterMs, workingAfterMs: timings.workingAfterMs };
  // `[reject]` in the purchase order number (a free-text field of the request) fails the buy in
  // review: a fault the demo and tests ask for.
  const poNumber = buy.request.po_number;
  if (typeof poNumber === 'string' && poNumber.includes('[reject]')) {
    return {
      kind: 'approve',
      ...review,
      reject: { code: 'POLICY_VIOLATION', message: 'The media buy was rejected in review.' },
    };
  }
  const webhook = buy.request.push_notification_config !== undefined;
  if (policy.approval === 'manual') {
    // Pending from the answer on: the controller may decide it before the review starts waiting.
    await markPending(db, buy.principal, buy.mediaBuyId);
    return {
      kind: 'approve',
      ...review,
      message: `Media buy ${buy.mediaBuyId} awaits the seller's approval (comply_test_controller force_media_buy_status)`,
      review: ({ mediaBuyId, signal }) => awaitApproval(db, buy.principal, mediaBuyId, signal),
    };
  }
  if (policy.approval === 'review') {
    const seededOnly = buy.packages.every((p) => findProduct(p.product.product_id) === undefined);
    return seededOnly && !webhook ? { kind: 'confirm' } : { kind: 'approve', ...review };
  }
  const guaranteed = buy.packages.some((p) => p.product.delivery_type === 'guaranteed');
  return guaranteed && webhook
    ? { kind: 'approve', ...review, message: 'Awaiting IO signature from the sales team' }
    : { kind: 'confirm' };
}

/** The fixture kind of a buy waiting for a manual decision (`pending`, `approved`, `rejected`). */
const APPROVAL = 'kit:approval';

/** Records a buy as waiting for a manual decision, unless it already is or was decided. */
async function markPending(db: SellerDb, principal: string, mediaBuyId: string): Promise<void> {
  if ((await db.getFixture(principal, APPROVAL, mediaBuyId)) === undefined) {
    await db.putFixture(principal, APPROVAL, mediaBuyId, { media_buy_id: mediaBuyId, decision: 'pending' });
  }
}

/** Waits for the controller's decision on a buy in manual review; the task's abort stops it. */
async function awaitApproval(
  db: SellerDb,
  principal: string,
  mediaBuyId: string,
  signal: AbortSignal,
): Promise<true | { code: string; message: string }> {
  await markPending(db, principal, mediaBuyId);
  for (;;) {
    const stored = await db.getFixture(principal, APPROVAL, mediaBuyId);
    if (stored?.decision === 'approved') return true;
    if (stored?.decision === 'rejected') {
      return {
        code: 'POLICY_VIOLATION',
        message: typeof stored.reason === 'string' ? stored.reason : 'The seller rejected the media buy.',
      };
    }
    await new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const timer = setTimeout(resolve, MANUAL_POLL_MS);
      signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
    });
  }
}

/**
 * The media-buy kit over the reference seller's own state: its catalog as inventory, its
 * formats, its approval policy, and the kit's records kept in the seller's database
 * (seller-kit-records.ts).
 */
export function sellerKit(db: SellerDb, now: () => number, policy: SellerPolicy): MediaBuyKit {
  return createMediaBuyKit({
    records: sellerKitRecords(db, now),
    now,
    seller: {
      products: ({ brief, filters }) =>
        searchCatalog(brief, filters).map((p) => productToWire(p) as unknown as Product),
      formats: catalogFormats(),
      // Plans from the catalog's own products only (a controller-seeded product is not proposed).
      propose: (_query, products) => proposePlans(products.filter((p) => findProduct(p.product_id) !== undefined)),
      decide: (buy) => decideBuy(db, policy, buy),
      supportedBilling: SUPPORTED_BILLING,
      permitsBilling: (billing, { principal }) =>
        billing === 'operator' || policy.passthroughPrincipals?.has(principal) !== true
          ? true
          : { suggested: 'operator' },
    },
  });
}

/**
 * The kit's controller scenarios, with `force_media_buy_status` also deciding a buy in manual
 * review (`--approval manual`): `rejected` fails its task (with `rejection_reason`), any other
 * status approves it.
 */
export function sellerScenarios(kit: MediaBuyKit, db: SellerDb): Record<string, ControllerScenario> {
  const force = kit.scenarios['force_media_buy_status'];
  return {
    ...kit.scenarios,
    async force_media_buy_status(params: JsonObject, ctx) {
      const id = typeof params.media_buy_id === 'string' ? params.media_buy_id : '';
      const pending = id === '' ? undefined : await db.getFixture(ctx.principal, APPROVAL, id);
      if (pending?.decision !== 'pending') {
        if (force === undefined) throw new ControllerError('UNKNOWN_SCENARIO', 'force_media_buy_status');
        return await force(params, ctx);
      }
      const rejected = params.status === 'rejected';
      const reason = typeof params.rejection_reason === 'string' ? params.rejection_reason.slice(0, 2000) : undefined;
      await db.putFixture(ctx.principal, APPROVAL, id, {
        ...pending,
        decision: rejected ? 'rejected' : 'approved',
        ...(reason === undefined ? {} : { reason }),
      });
      return {
        previous_state: 'submitted',
        current_state: rejected ? 'rejected' : 'approved',
        message: `Media buy ${id} ${rejected ? 'rejected' : 'approved'}; its create_media_buy task ends shortly.`,
      };
    },
  };
}
