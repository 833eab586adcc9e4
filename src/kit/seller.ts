import type { JsonObject } from '../core/types.js';
import type { BillingParty, Format, Product, Proposal } from '../schemas/generated/adcp-3.1.js';
import type { ToolContext } from '../server/types.js';

/** What a buyer asked `get_products` for (the request as sent, the caller who sent it). */
export interface ProductQuery {
  brief: string | undefined;
  filters: JsonObject;
  principal: string;
}

/** A media buy the kit is about to create, with each package's product resolved. */
export interface ProposedBuy {
  principal: string;
  /** The account the buy is for (its `account_id`, resolved from the request's account reference). */
  accountId: string;
  request: JsonObject;
  packages: { request: JsonObject; product: Product }[];
  /** The id the buy gets when it is confirmed (derived from the buyer's idempotency key). */
  mediaBuyId: string;
  /** The sum of the packages' budgets, in `currency`. */
  totalBudget: number;
  currency: string;
}

/** A plan the seller proposes for a brief: 3.1 `core/proposal.json` without the id and status the kit assigns. */
export type ProposalDraft = Omit<Proposal, 'proposal_id' | 'proposal_status' | 'expires_at' | 'insertion_order'>;

/** How the seller answered a refine entry's `ask` (get-products-response.json `refinement_applied`). */
export interface RefineVerdict {
  status: 'applied' | 'partial' | 'unable';
  notes?: string;
  /** For a proposal-scoped entry: the revised plan (allocations, name, ...), stored under the same id. */
  proposal?: Partial<ProposalDraft>;
}

/**
 * What the seller decides of a new buy: `confirm` (the default) answers at once with a
 * `media_buy_id`; `approve` answers `submitted` and confirms after the seller's own review
 * (`afterMs`, then the task completes and webhooks fire), or fails the task with `reject`.
 */
export type BuyDecision =
  | { kind: 'confirm' }
  | {
      kind: 'approve';
      afterMs: number;
      reject?: { code: string; message: string };
      /** Reports `working` (a webhook) this long after submission, while the review goes on. */
      workingAfterMs?: number;
      /** The `submitted` answer's message (default "Media buy submitted for approval"). */
      message?: string;
      /**
       * The seller's own review instead of a timer (a person signing the IO): resolves `true` to
       * confirm the buy, or the error that fails the task. `mediaBuyId` is the id the buy gets.
       */
      review?: (pending: {
        mediaBuyId: string;
        signal: AbortSignal;
      }) => Promise<true | { code: string; message: string }>;
    }
  | { kind: 'reject'; code: string; message: string; field?: string };

/**
 * A seller plugs its inventory, pricing and decisions into the kit through this. Only `products`
 * is required; each other member has the default its comment names.
 */
export interface MediaBuySeller {
  /**
   * The products this caller may see for a query (3.1 `core/product.json`). The kit adds seeded
   * ones and applies the filters a product's own fields answer (src/kit/product-filters.ts:
   * delivery type, exclusivity, channels, formats, pricing type and currencies, max CPM, required
   * metrics and vendor metrics); the seller applies the others of `query.filters` (geography,
   * dates, budget, ...) to its own products, or refuses one it cannot answer with
   * UNSUPPORTED_FEATURE naming it (decision 0254).
   */
  products(query: ProductQuery): Product[] | Promise<Product[]>;
  /** The creative formats the seller accepts (`list_creative_formats`). Default: none listed. */
  formats?: Format[];
  /** Decides a new buy. Default: every buy is confirmed at once. */
  decide?(buy: ProposedBuy, context: ToolContext): BuyDecision | Promise<BuyDecision>;
  /**
   * Whether the seller accepts a package's proposed `measurement_terms` (3.1 `core/measurement-terms.json`)
   * for that product; a string is the reason it refuses (TERMS_REJECTED). Default: terms asking
   * for a billing variance of 0 % or a vendor the product does not offer are refused.
   */
  acceptTerms?(terms: JsonObject, product: Product): true | string;
  /**
   * Who may be invoiced on an account (`sync_accounts` `billing`): the seller-wide capability,
   * stated as `account.supported_billing`. Another value is BILLING_NOT_SUPPORTED. Default
   * `['operator']`.
   */
  supportedBilling?: BillingParty[];
  /**
   * The per-buyer-agent gate (decision 0211): whether the caller's commercial relationship permits
   * a `billing` value the capability accepts. `true` permits; `{ suggested }` refuses
   * (BILLING_NOT_PERMITTED_FOR_AGENT), naming at most one value the agent may retry with (omit
   * it when none: the agent must then onboard offline). To a caller without an established
   * identity (`anonymous@...`) the kit answers a refusal as BILLING_NOT_SUPPORTED, as the spec
   * requires. Default: every supported value is permitted.
   */
  permitsBilling?(
    billing: BillingParty,
    caller: { principal: string },
  ): true | { suggested?: BillingParty } | Promise<true | { suggested?: BillingParty }>;
  /** The status a newly synced account gets. Default `active`. */
  openAccount?(request: JsonObject): 'active' | 'pending_approval';
  /**
   * Curated plans for a brief (`proposals` in `get_products`), stored as drafts the buyer refines,
   * finalizes and executes. Without it the seller makes no proposals (`supports_proposals` false).
   */
  propose?(query: ProductQuery, products: Product[]): ProposalDraft[] | Promise<ProposalDraft[]>;
  /**
   * Acts on a refine entry's free-text `ask` (scope request, product or proposal). Default: the
   * kit does not read free text, so the entry is answered `unable` and the item returned unchanged.
   */
  refine?(
    entry: JsonObject,
    context: { products: Product[]; product?: Product; proposal?: JsonObject },
  ): RefineVerdict | Promise<RefineVerdict>;
  /** How long a finalized proposal holds its inventory (`expires_at`). Default 24 h. */
  proposalHoldMs?: number;
  /** Whether executing a committed proposal needs the buyer's `io_acceptance`. Default true. */
  proposalRequiresSignature?: boolean;
  /** Matched members a synced audience needs to be `ready` (else `too_small`). Default 1. */
  audienceMinimumSize?: number;
  /**
   * The seller's own check of a creative sent to `sync_creatives` (its policies, the formats it
   * trafficks), before anything is written: `true` accepts it; `{ code, message, field }` refuses
   * it (`field` relative to the creative, e.g. `assets.title`). Under `validation_mode: strict` a
   * refusal fails the whole call; under `lenient` that creative is `failed`. Default: every creative
   * the request schema accepts.
   */
  checkCreative?(
    creative: JsonObject,
    context: { principal: string; accountId: string },
  ):
    | true
    | { code: string; message: string; field?: string }
    | Promise<true | { code: string; message: string; field?: string }>;
  /** How new creatives are reviewed: `auto_approve` (default: approved at once) or `manual` (pending_review). */
  creativeApproval?: 'auto_approve' | 'manual';
  /**
   * `build_creative` beyond what the kit does itself (library retrieval and a target in the
   * source's own format): a manifest for `target` from the `source` manifest (a transformation)
   * or from the request's brief alone (`source` undefined: a generation). Default: none, so
   * those builds are UNSUPPORTED_FEATURE and the capabilities claim neither.
   */
  build?(input: {
    request: JsonObject;
    source: JsonObject | undefined;
    target: JsonObject;
  }): JsonObject | Promise<JsonObject>;
}
